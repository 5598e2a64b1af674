import type { DemoCredential } from './auth/demo-key';
import { ENDPOINTS, Operations, type OperationParams } from './generated/records';

export interface StartupInfo {
  url: string;
  /** Where the process listens (HOST and the port), which a container's published port may not be. */
  listening: { host: string; port: number };
  database: string;
  demoKey?: DemoCredential;
  workers?: number;
}

/** The call the start-up lines suggest, typed by its generated signature so it follows the WSDL. */
const TRY = { operation: 'GetMonster', params: { MonsterID: 1 } satisfies OperationParams['GetMonster'] } as const;
const TRY_PATH = Operations.find((o) => o.name === TRY.operation)!.path;

/** What `svapi serve` prints once it listens (the cluster primary prints it for all workers). */
export function startupLines(info: StartupInfo): string {
  const { url, listening } = info;
  const address = listening.host.includes(':') ? `[${listening.host}]:${listening.port}` : `${listening.host}:${listening.port}`;
  const lines = [
    `svapi listening on ${url}`,
    `  address:   ${address} (in a container, the port published for it may differ: docker run -p <port>:${listening.port})`,
    `  endpoints: ${ENDPOINTS.map((e) => url + e.path).join('  ')}`,
    `  WSDL:      ${url}${TRY_PATH}?wsdl (likewise for each endpoint)`,
    `  database:  ${info.database}`,
  ];
  if (info.workers !== undefined) lines.push(`  workers:   ${info.workers}`);
  if (info.demoKey) {
    lines.push(`  demo credential: DevID=${info.demoKey.devId} DevKey=${info.demoKey.devKey}`);
    const query = new URLSearchParams({ DevID: String(info.demoKey.devId), DevKey: info.demoKey.devKey });
    for (const [name, value] of Object.entries(TRY.params)) query.append(name, String(value));
    lines.push(`  try: curl '${url}${TRY_PATH}/${TRY.operation}?${query}'`);
  }
  return `${lines.join('\n')}\n`;
}
