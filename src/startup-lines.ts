import type { DemoCredential } from './auth/demo-key';
import { ENDPOINTS } from './bindings/endpoints';

export interface StartupInfo {
  url: string;
  database: string;
  demoKey?: DemoCredential;
  workers?: number;
}

/** What `svapi serve` prints once it listens (the cluster primary prints it for all workers). */
export function startupLines(info: StartupInfo): string {
  const { url } = info;
  const lines = [
    `svapi listening on ${url}`,
    `  endpoints: ${ENDPOINTS.map((e) => url + e.path).join('  ')}`,
    `  WSDL:      ${url}/API/hunting.asmx?wsdl (likewise for each endpoint)`,
    `  database:  ${info.database}`,
  ];
  if (info.workers !== undefined) lines.push(`  workers:   ${info.workers}`);
  if (info.demoKey) {
    lines.push(`  demo credential: DevID=${info.demoKey.devId} DevKey=${info.demoKey.devKey}`);
    lines.push(`  try: curl '${url}/API/hunting.asmx/GetMonster?DevID=${info.demoKey.devId}&DevKey=${info.demoKey.devKey}&MonsterID=1'`);
  }
  return `${lines.join('\n')}\n`;
}

