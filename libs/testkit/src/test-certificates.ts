import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** A CA, and a certificate for 127.0.0.1 that it signed. */
  ca: string;
  signed: { key: string; cert: string };
  /** A certificate for 127.0.0.1 that signed itself. */
  selfSigned: { key: string; cert: string };
}

/** Certificates for an https receiver on loopback, made with the openssl command line in a directory removed afterwards. */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'testkit-tls-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=testkit CA');
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1');
    ssl('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.crt', '-days', '2', '-extfile', 'san.ext');
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'self.key', '-out', 'self.crt', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1');
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    return { ca: read('ca.crt'), signed: { key: read('srv.key'), cert: read('srv.crt') }, selfSigned: { key: read('self.key'), cert: read('self.crt') } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
