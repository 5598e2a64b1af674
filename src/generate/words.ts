/**
 * Word lists the generated names are built from (all invented). None of them contains
 * SEARCH_WORD ("Zephyr"): only the weapons chosen for it carry that word.
 */

/** Weapon classes: each has a Hit and a Dmg profession, damage types, nouns and model codes. */
export const WEAPON_CLASSES: { name: string; damage: string[]; nouns: string[]; codes: string[] }[] = [
  { name: 'Laser Sniper', damage: ['Burn', 'Penetration', 'Electric'],
    nouns: ['Longrifle', 'Sniper', 'Marksman Rifle', 'Beam Rifle', 'Lance', 'Carbine'], codes: ['LR', 'HS', 'S', 'LX'] },
  { name: 'Handgun', damage: ['Impact', 'Penetration', 'Burn', 'Stab'],
    nouns: ['Pistol', 'Handcannon', 'Revolver', 'Sidearm', 'Blaster', 'Derringer'], codes: ['P', 'HC', 'R', 'SA'] },
  { name: 'Plasma Rifleman', damage: ['Burn', 'Electric', 'Penetration', 'Acid'],
    nouns: ['Plasma Carbine', 'Repeater', 'Ion Rifle', 'Needler', 'SMG', 'Breacher'], codes: ['PC', 'IR', 'SMG', 'BR'] },
  { name: 'Swordsman', damage: ['Cut', 'Stab', 'Impact', 'Electric'],
    nouns: ['Sabre', 'Knife', 'Warhammer', 'Glaive', 'Dagger', 'Whip', 'Klinge'], codes: ['SB', 'KN', 'WH', 'GL'] },
  { name: 'Mindforce Adept', damage: ['Cold', 'Electric', 'Burn', 'Acid'],
    nouns: ['Chip', 'Mindstaff', 'Focus', 'Implant', 'Amulet', 'Rune'], codes: ['MC', 'MF', 'XI', 'RN'] },
  { name: 'Grenadier', damage: ['Impact', 'Shrapnel', 'Burn', 'Penetration'],
    nouns: ['Launcher', 'Flamer', 'Mortar', 'Boomstick', 'Pod', 'Mörser'], codes: ['GL', 'F', 'M', 'BL'] },
];
export const OTHER_PROFESSIONS = ['Miner', 'Tailor'];

export const BRANDS = ['Korvus', 'ArcMatrix', 'Brightline', 'Harrow', 'Vanta', 'Quellon', 'Opalo', 'Sollvane', 'Gale',
  'Cinder', 'Rift', 'Astra', 'Vexa', 'Hart & Söhne', 'Kestrel', 'Spindle', 'Thornwood', 'Skarn', 'Wyrmfang', 'Moonglass',
  'Halcyon', 'Corrosa', 'Pyrex', 'Ruin', 'Shardstorm', 'Hailfire', 'Quake', 'Стрела', '雷電', 'Ørnfell'];
export const ADJECTIVES = ['Ashen', 'Brisk', 'Coral', 'Dusk', 'Ember', 'Feral', 'Gilded', 'Hollow', 'Ivory', 'Jade',
  'Keen', 'Lunar', 'Molten', 'Nether', 'Onyx', 'Pale', 'Quartz', 'Rust', 'Storm', 'Tidal', 'Umbral', 'Vivid', 'Wild',
  'Amber', 'Bleak', 'Crimson', 'Dire', 'Frost', 'Grim', 'Hallowed', 'Iron', 'Jagged', 'Kinetic', 'Lucent', 'Mire',
  'Noble', 'Obsidian', 'Primal', 'Radiant', 'Sable', 'Thunder', 'Verdant', 'Woven', 'Übergrößé'];
export const WEAPON_VARIANTS = ['', '', '', '', '', ' (L)', ' (L)', ' Improved', ' Adjusted', ' Modified', ', Mk. II',
  ', Mk. III', ' "Prototype"', ' <Limited>', ' Mk2', ' Perfected'];

export const ITEM_CATEGORIES: [string, string[]][] = [
  ['Animal Materials', ['Hide', 'Fang', 'Bone', 'Sinew', 'Scale', 'Claw', 'Oil']],
  ['Robot Parts', ['Servo', 'Circuit', 'Plating', 'Optic', 'Core', 'Gyro']],
  ['Ores', ['Ore', 'Nugget', 'Shard', 'Stone']],
  ['Enmatters', ['Essence', 'Fluid', 'Resin', 'Dust', 'Gas']],
  ['Refined Materials', ['Ingot', 'Alloy', 'Compound', 'Gel']],
  ['Textures', ['Leather', 'Weave', 'Fabric', 'Pelt Texture']],
  ['Blueprints', ['Pistol Blueprint', 'Rifle Blueprint', 'Armor Blueprint', 'Tool Blueprint']],
  ['Armor Parts', ['Helmet', 'Harness', 'Gloves', 'Boots', 'Thigh Guards', 'Arm Guards']],
  ['Weapon Attachments', ['Scope', 'Amplifier', 'Laser Sight', 'Absorber', 'Barrel']],
  ['Medical Tools', ['Med Kit', 'Stim Pack', 'Healing Chip', 'Bandage']],
  ['Consumables', ['Ration', 'Pill', 'Tonic', 'Energy Bar']],
  ['Clothing', ['Coat', 'Shirt', 'Hat', 'Pants', 'Cloak']],
  ['Furniture & Decor', ['Chair', 'Lamp', 'Table', 'Rug', 'Statue']],
  ['Vehicles', ['Hoverbike', 'Skiff', 'Quad', 'Glider']],
  ['Tools', ['Finder', 'Excavator', 'Refiner', 'Scanner']],
  ['Components', ['Capacitor', 'Lens', 'Coil', 'Spring', 'Nuts & Bolts']],
  ['Pets', ['Egg', 'Collar', 'Treat', 'Nest']],
  ['Trophies', ['Trophy', 'Medal', 'Badge', 'Token']],
  ['Deeds', ['Land Deed', 'Shop Deed', 'Apartment Deed']],
  ['Miscellaneous', ['Crate', 'Coin', 'Key Fragment', 'Voucher', 'Relic']],
];
export const ITEM_GRADES = ['', '', '', '', ' I', ' II', ' III', ' IV', ' (Refined)', ' (Pure)', ', Cracked', ' Mk. 2',
  ' "Pristine"', ' 50%'];

export const AUCTION_CATEGORIES = ['Weapons', 'Weapon Attachments', 'Armor', 'Armor Plates', 'Clothing', 'Tools', 'Finders',
  'Excavators', 'Refiners', 'Medical Tools', 'Blueprints', 'Animal Materials', 'Robot Parts', 'Ores', 'Enmatters',
  'Refined Materials', 'Textures', 'Furniture & Decor', 'Vehicles', 'Pets', 'Consumables', 'Land Deeds', 'Miscellaneous',
  'Handguns', 'Rifles', 'Melee Weapons', 'Mindforce Chips', 'Launchers', 'Scopes', 'Amplifiers', 'Helmets', 'Boots',
  'Gloves', 'Components', 'Trophies', 'Decorations', 'Apartments', 'Shops', 'Pet Food', 'Other'];

export const PLANETS: [string, string | null][] = [
  ['Veridia Prime', 'A temperate, resource-rich colony world; the "gateway" for new settlers.'],
  ['Ashfall', 'Volcanic world of ash storms, lava flows and rich ore veins.'],
  ['Nereon', 'Ocean planet dotted with floating platforms.'],
  ['Kharos Minor', 'Frozen moon, home of the "Pale Legion".'],
  ['Thule Station', null],
  ['Ørn Belt', 'Asteroid belt mined by independent crews.'],
  ['Cygnar', 'Jungle world under a permanent canopy.'],
  ['Dust Reach', 'A dry, wind-scoured frontier.'],
];
export const AREAS = ['Port Veridia Outskirts', 'Greenhollow Plains', "Eudora's Rest", 'Swamp & Mire', 'Cinder Flats',
  'Ashfall, North Rim', 'Camp Ñandú', 'Obsidian Gorge', 'Reef Platform 9', 'Tidewatch', 'Deep Trench <Restricted>',
  'Pale Glacier', 'Frostmarch', 'Kharos Minor Crater', 'Station Ring A', 'Ørn Belt Mining Field', 'Uncharted Rift',
  'Event Arena "Colosseum"', 'Canopy Hollow', 'Dust Reach Badlands'];
export const TERRAIN = ['Plains', 'Ridge', 'Valley', 'Outpost', 'Crater', 'Marsh', 'Dunes', 'Canyon', 'Forest', 'Shelf'];

export const CREATURES = ['Argonaut', 'Atrox', 'Vesper Moth', 'Grimscale', 'Thornback', 'Dune Stalker', 'Quillhog',
  'Marsh Leaper', 'Ironhide Bull', 'Sky Ray', 'Cave Crawler', 'Molten Golem', 'Frost Wyrm', 'Shardling', 'Bog Troll',
  'Razorfin', 'Hollow Sentinel', 'Ember Drake', 'Void Leech', 'Sandskipper', 'Gravemaw', 'Stormhorn', 'Mire Hound',
  'Mörk Fjäril', 'Ñandú', 'Болотник', '鬼火', 'Gloom & Doom Beetle', "Kraken's Spawn", 'Snarl, the Unbroken',
  'Tidecaller', 'Rockback', 'Glimmerwing', 'Spinefang', 'Ashwalker', 'Cindermaw', 'Bramblehog', 'Nightcrest',
  'Riftling', 'Saltjaw', 'Tusker', 'Duneworm', 'Lurker', 'Howler', 'Scuttler', 'Gloomwing', 'Ironclaw', 'Sporeback',
  'Vinewraith', 'Skyreaver'];
export const MATURITIES = ['', 'Young', 'Mature', 'Old', 'Provider', 'Guardian', 'Dominant', 'Alpha', 'Prowler',
  'Stalker', 'Elder', 'Champion'];
export const REGIONS = ['', 'Northern', 'Southern', 'Cave', 'Swamp', 'Desert', 'Arctic', 'Volcanic', 'Abyssal',
  'Ancient', 'Feral', 'Corrupted'];
export const MONSTER_TRAITS = ['territorial', 'nocturnal', 'pack-hunting', 'solitary', 'armoured', 'venomous'];
export const MONSTER_RARITY = ['common', 'rare', 'feared', 'legendary'];

export const FIRST_NAMES = ['Ada', 'Bram', 'Cato', 'Dara', 'Eli', 'Fenn', 'Gia', 'Hale', 'Isla', 'Jax', 'Kira', 'Lio',
  'Mace', 'Nia', 'Oren', 'Pax', 'Quin', 'Rhea', 'Sol', 'Tova', 'Uma', 'Vik', 'Wren', 'Xan', 'Yara', 'Zoë', 'Иван', '小明',
  'Ñoño', 'Dagny', 'Emeka', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kwame', 'Leila', 'Mateo', 'Noor'];
export const NICKNAMES = ['Ace', 'Rook', 'Viper', 'Ghost', 'Spark', 'Drift', 'Wolf', 'Echo', 'Blaze', 'Flint', 'Nova',
  'Raven', 'Shade', 'Talon', 'Vex', 'Whisper', 'Bolt', 'Cinder', 'Dash', 'Frost', 'Gale', 'Havoc', 'Jinx', 'Knox'];
export const LAST_NAMES = ['Varn', 'Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Castell', 'Reyes', 'Novak', 'Ashby',
  'Tallis', "O'Rourke", 'Ünal', 'Petrov', 'Brandt', 'Halvorsen', 'Mbeki', 'Sato', 'Duarte', 'Kowalski', 'Fischer',
  'Nakamura', 'Oyelaran', 'Lefebvre', 'Ivanova', 'Haddad', 'Carvalho', 'Jensen', 'Müller', 'Rossi', 'Singh'];
export const TEAM_ADJECTIVES = ['Iron', 'Night', 'Crimson', 'Silent', 'Golden', 'Feral', 'Storm', 'Pale', 'Lucky',
  'Rogue', 'Frozen', 'Hollow'];
export const TEAM_NOUNS = ['Covenant', 'Owls', 'Syndikat', 'Crew', 'Legion', 'Hunters', 'Raiders', 'Brotherhood',
  'Wolves', 'Company', 'Collective', 'Loot Club'];

export const FLAVOUR: ((name: string) => string)[] = [
  (n) => `${n} is sturdy, cheap to run and easy to repair.`,
  (n) => `Veterans call ${n} "the workhorse", and with good reason.`,
  () => 'Rarely seen on the market; prized by collectors, traders and hunters alike.',
  () => 'Standard issue for new colonists.',
  () => 'Said to be "unbreakable", though nobody has tested that claim.',
  () => 'Recovered from the wreck of the "Long Night", a colony hauler.',
];

export const GLOBAL_TYPES = ['Hunting', 'Hall of Fame', 'ATH', 'Team Hunting'];
