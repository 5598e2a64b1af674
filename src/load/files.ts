/** The dataset's files (CONTRACT §9): their columns, types and the tables they fill. */
type ColumnType = 'int' | 'decimal' | 'boolean' | 'timestamp' | 'text';

export interface ColumnSpec {
  /** CSV header name. */
  name: string;
  /** Table column. */
  db: string;
  type: ColumnType;
  nullable: boolean;
  /** File of the kind this column refers to (by that kind's ID). */
  ref?: string;
}

export interface FileSpec {
  file: string;
  table: string;
  /**
   * record: upserted by its ID (the first column).
   * damage: keyed by (WeaponID, DamageTypeName); a weapon in the file gets exactly the file's rows.
   * globals: no ID; a row is its whole content, inserted unless already there.
   */
  mode: 'record' | 'damage' | 'globals';
  /** Table columns of the conflict target. */
  key: string[];
  columns: ColumnSpec[];
}

type Extra = Partial<Pick<ColumnSpec, 'nullable' | 'ref'>>;
const col = (type: ColumnType) => (name: string, db: string, extra: Extra = {}): ColumnSpec => ({
  name, db, type, nullable: false, ...extra,
});
const int = col('int');
const decimal = col('decimal');
const text = col('text');
const boolean = col('boolean');
const timestamp = col('timestamp');
const optionalText = (name: string, db: string) => text(name, db, { nullable: true });

const record = (file: string, columns: ColumnSpec[]): FileSpec => ({
  file: `${file}.csv`, table: file, mode: 'record', key: [columns[0].db], columns,
});

/** In write order: every file after the files it refers to. */
export const FILES: readonly FileSpec[] = [
  record('professions', [int('ProfessionID', 'profession_id'), text('ProfessionName', 'profession_name')]),
  record('item_categories', [int('CategoryID', 'category_id'), text('CategoryName', 'category_name')]),
  record('auction_categories', [int('CategoryID', 'category_id'), text('CategoryName', 'category_name')]),
  record('planets', [
    int('PlanetID', 'planet_id'), text('PlanetName', 'planet_name'), optionalText('Description', 'description'),
  ]),
  record('monsters', [
    int('MonsterID', 'monster_id'), text('MonsterName', 'monster_name'),
    optionalText('Description', 'description'), optionalText('ItemPictureURL', 'item_picture_url'),
  ]),
  record('players', [int('PlayerID', 'player_id'), text('PlayerName', 'player_name'), boolean('IsTeam', 'is_team')]),
  record('global_types', [int('GlobalTypeID', 'global_type_id'), text('GlobalTypeName', 'global_type_name')]),
  record('weapons', [
    int('WeaponID', 'weapon_id'), text('WeaponName', 'weapon_name'),
    optionalText('Description', 'description'), optionalText('ItemPictureURL', 'item_picture_url'),
    decimal('MinHitLevel', 'min_hit_level'), decimal('MaxHitLevel', 'max_hit_level'),
    decimal('MinDmgLevel', 'min_dmg_level'), decimal('MaxDmgLevel', 'max_dmg_level'),
    decimal('Weight', 'weight'), decimal('Range', 'range'), decimal('ImpactRadius', 'impact_radius'),
    decimal('AttacksMin', 'attacks_min'), decimal('Decay', 'decay'), int('AmmoBurn', 'ammo_burn'),
    decimal('TTValue', 'tt_value'), decimal('MinTTValue', 'min_tt_value'), int('TotalUses', 'total_uses'),
    boolean('SIBWeapon', 'sib_weapon'),
    int('HitProfessionID', 'hit_profession_id', { ref: 'professions.csv' }),
    int('DmgProfessionID', 'dmg_profession_id', { ref: 'professions.csv' }),
    int('ItemID', 'item_id'),
  ]),
  {
    file: 'weapon_damage.csv', table: 'weapon_damage', mode: 'damage', key: ['weapon_id', 'damage_type_name'],
    columns: [
      int('WeaponID', 'weapon_id', { ref: 'weapons.csv' }), text('DamageTypeName', 'damage_type_name'),
      decimal('Damage', 'damage'),
    ],
  },
  record('items', [
    int('ItemID', 'item_id'), text('ItemName', 'item_name'),
    optionalText('Description', 'description'), optionalText('ItemPictureURL', 'item_picture_url'),
    decimal('TTValue', 'tt_value'), int('CategoryID', 'category_id', { ref: 'item_categories.csv' }),
  ]),
  record('landareas', [
    int('AreaID', 'area_id'), text('AreaName', 'area_name'),
    int('PlanetID', 'planet_id', { nullable: true, ref: 'planets.csv' }),
  ]),
  {
    file: 'hunting_globals.csv', table: 'hunting_globals', mode: 'globals', key: [],
    columns: [
      int('MonsterID', 'monster_id', { ref: 'monsters.csv' }), timestamp('TimeStamp', 'time_stamp'),
      int('GlobalTypeID', 'global_type_id', { ref: 'global_types.csv' }), int('GlobalValue', 'global_value'),
      int('PlayerID', 'player_id', { ref: 'players.csv' }), int('LandareaID', 'landarea_id', { ref: 'landareas.csv' }),
    ],
  },
];

export const SPEC_BY_FILE: ReadonlyMap<string, FileSpec> = new Map(FILES.map((f) => [f.file, f]));

export const SQL_TYPES: Record<ColumnType, string> = {
  int: 'integer', decimal: 'numeric', boolean: 'boolean', timestamp: 'timestamptz', text: 'text',
};

/** The ID column of a record kind (what other files refer to). */
export const idColumn = (spec: FileSpec): ColumnSpec => spec.columns[0];

/** Columns of other files that refer to `file`, with their specs. */
export function referencesTo(file: string): { spec: FileSpec; column: ColumnSpec }[] {
  return FILES.flatMap((spec) => spec.columns.filter((c) => c.ref === file).map((column) => ({ spec, column })));
}
