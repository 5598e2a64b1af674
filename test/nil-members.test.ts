// The members the WSDL declares minOccurs="1" nillable="true" (as ASMX's XmlSerializer did):
// Description of Weapon, Item and Monster, Landarea.Planet, Planet.Description. Every binding
// sends them, nil when there is no value, never leaves them out (sample data: monster 2 has no
// description, land area 117 no planet, planet 5 of land area 115 no description).

import { BINDINGS, call, type BindingName } from './support/bindings';
import { startService, type TestService } from './support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

const creds = () => ({ DevID: String(svc.key.devId), DevKey: svc.key.devKey });
const NIL = (name: string) => new RegExp(`<${name} xsi:nil="true" ?/>`);

async function body(binding: BindingName, op: string, params: Record<string, string>): Promise<string> {
  const res = await call(svc.url, binding, '/API/hunting.asmx', op, { ...creds(), ...params });
  expect(res.status).toBe(200);
  return res.body;
}

async function json(op: string, params: Record<string, number>): Promise<{ d: unknown }> {
  const res = await fetch(`${svc.url}/API/hunting.asmx/${op}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ DevID: svc.key.devId, DevKey: svc.key.devKey, ...params }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { d: unknown };
}

test.each(BINDINGS)('%s: a monster without description has <Description xsi:nil="true" />', async (binding) => {
  const monster = await body(binding, 'GetMonster', { MonsterID: '2' });
  expect(monster).toMatch(new RegExp(`<MonsterID>2</MonsterID>${NIL('Description').source}`));
  // and in a list, each record has its Description element, nil or not
  const monsters = await body(binding, 'GetMonsters', { SearchWord: '' });
  const records = monsters.match(/<Monster>.*?<\/Monster>/g) ?? [];
  expect(records.length).toBeGreaterThan(3);
  for (const r of records) expect(r).toMatch(/<Description( xsi:nil="true" ?\/>|>)/);
});

test.each(BINDINGS)('%s: a land area without planet has <Planet xsi:nil="true" />; a planet without description <Description xsi:nil="true" />', async (binding) => {
  const noPlanet = await body(binding, 'GetLandareaGlobals', { LandareaID: '117' });
  const areas = noPlanet.match(/<Landarea>.*?<\/Landarea>/g) ?? [];
  expect(areas.length).toBeGreaterThan(0);
  for (const a of areas) expect(a).toMatch(new RegExp(`<AreaID>117</AreaID>${NIL('Planet').source}</Landarea>`));

  const planetWithoutDescription = await body(binding, 'GetLandareaGlobals', { LandareaID: '115' });
  const planets = planetWithoutDescription.match(/<Planet>.*?<\/Planet>/g) ?? [];
  expect(planets.length).toBeGreaterThan(0);
  for (const p of planets) expect(p).toMatch(new RegExp(`<PlanetID>5</PlanetID>${NIL('Description').source}</Planet>`));
});

test('JSON: the same members are present as null', async () => {
  expect(await json('GetMonster', { MonsterID: 2 })).toEqual({ d: expect.objectContaining({ MonsterID: 2, Description: null }) });
  const area = ((await json('GetLandareaGlobals', { LandareaID: 117 })).d as Array<{ Landarea: unknown }>)[0].Landarea;
  expect(area).toEqual({ AreaName: expect.any(String), AreaID: 117, Planet: null });
  const planet = ((await json('GetLandareaGlobals', { LandareaID: 115 })).d as Array<{ Landarea: { Planet: unknown } }>)[0].Landarea.Planet;
  expect(planet).toEqual({ PlanetName: 'Thule Station', PlanetID: 5, Description: null });
});
