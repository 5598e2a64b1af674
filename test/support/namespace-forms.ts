import { serveOver, type ServedApp } from './serve';
import { startService, type TestService } from './service';

/**
 * The three forms of namespace a legacy deployment has: ASMX's default (ends in `/`, so its
 * actions take no second `/`), a URI without trailing slash, and the service's default.
 */
export const NAMESPACE_FORMS = ['http://tempuri.org/', 'http://example.com/svapi', 'SVAPI'] as const;
export type NamespaceForm = (typeof NAMESPACE_FORMS)[number];

export interface NamespaceServices {
  /** The default-namespace service: its database (sample data) and credential serve all three. */
  svc: TestService;
  /** Base URL of the instance configured with `namespace`. */
  url(namespace: NamespaceForm): string;
  close(): Promise<void>;
}

/** One instance of the service per namespace form, all over one database holding the sample data. */
export async function serveNamespaceForms(): Promise<NamespaceServices> {
  const svc = await startService();
  const others = new Map<string, ServedApp>();
  try {
    for (const ns of NAMESPACE_FORMS) if (ns !== svc.config.SVAPI_NAMESPACE) others.set(ns, await serveOver(svc.db, { SVAPI_NAMESPACE: ns }));
  } catch (e) {
    for (const o of others.values()) await o.close();
    await svc.close();
    throw e;
  }
  return {
    svc,
    url: (ns) => others.get(ns)?.url ?? svc.url,
    close: async () => {
      for (const o of others.values()) await o.close();
      await svc.close();
    },
  };
}
