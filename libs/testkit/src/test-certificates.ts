import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

export interface TestCertificates {
  /** A CA, and a certificate for 127.0.0.1 that it signed. */
  ca: string;
  signed: { key: string; cert: string };
  /** A certificate for 127.0.0.1 that signed itself. */
  selfSigned: { key: string; cert: string };
}

interface LocalCa {
  makeCa(name: string, days: number): { key: string; cert: string };
  issueCertificate(ca: { key: string; cert: string }, hosts?: string[], days?: number): { key: string; cert: string };
  selfSignedCertificate(hosts?: string[]): { key: string; cert: string };
}

/** Certificates for an https receiver on loopback, made as `npm run webhook:receive -- --https` makes its own (tools/local-ca.js). */
export function makeCertificates(): TestCertificates {
  // tools/ is plain JavaScript outside the TypeScript projects: loaded by path, its pieces apart, so that Nx's
  // graph does not count tools (and its dev packages) among the dependencies of the apps' images.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tools = require(join(ROOT, 'tools', 'local-ca.js')) as LocalCa;
  const ca = tools.makeCa('testkit CA', 2);
  return { ca: ca.cert, signed: tools.issueCertificate(ca, ['127.0.0.1'], 2), selfSigned: tools.selfSignedCertificate(['127.0.0.1']) };
}
