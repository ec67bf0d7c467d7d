import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { deployableApps, ROOT } from './workspace';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const lint = require(join(ROOT, 'docker/lint.js')) as {
  lintAll(): string[];
  lintDockerfile(text: string, apps?: string[]): string[];
  lintCompose(text: string): string[];
  lintComposeVolumes(compose: string, dockerfile: string): string[];
};

const dockerfile = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8');

describe('docker/lint.js', () => {
  it('finds no problem in docker/', () => {
    expect(lint.lintAll()).toEqual([]);
  });

  it('checks every deployable app against the Dockerfile', () => {
    expect(deployableApps()).toEqual(expect.arrayContaining(['docstore', 'gateway', 'ingest-push']));
    expect(lint.lintDockerfile(dockerfile, deployableApps())).toEqual([]);
  });

  it.each([
    ['a floating base image', dockerfile.replaceAll('node:20.20.2-bookworm-slim', 'node:20-slim'), /not pinned/],
    ['latest', dockerfile.replaceAll('node:20.20.2-bookworm-slim', 'node:latest'), /not pinned/],
    ['no USER', dockerfile.replace(/^USER .*$/m, ''), /sets no USER/],
    ['USER root', dockerfile.replace(/^USER .*$/m, 'USER root'), /runs as root/],
    ['USER 0:0', dockerfile.replace(/^USER .*$/m, 'USER 0:0'), /runs as root/],
    ['no HEALTHCHECK', dockerfile.replace(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, ''), /no HEALTHCHECK/],
    ['a build path Nx does not produce', dockerfile.replaceAll('/src/dist/$APP/', '/src/build/$APP/'), /copies nothing from dist\/\$APP/],
    ['a main.js that is not there', dockerfile.replace('apps/$APP/src/main.js', 'main.js'), /CMD does not run apps\/\$APP\/src\/main\.js/],
  ])('reports %s', (_name, text, problem) => {
    expect(lint.lintDockerfile(text, ['docstore'])).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
  });

  it('reports a compose image that is not pinned, and accepts pinned ones and the images built here', () => {
    expect(lint.lintCompose('services:\n  redis:\n    image: redis:7\n')).toEqual([expect.stringMatching(/redis:7/)]);
    expect(lint.lintCompose('services:\n  redis:\n    image: redis:7.4.5\n  app:\n    image: services/docstore:latest\n')).toEqual([]);
  });

  it('reports a named volume the image does not give to its user, and accepts one it does', () => {
    const compose = readFileSync(join(ROOT, 'docker/compose.yml'), 'utf8');
    expect(lint.lintComposeVolumes(compose, dockerfile)).toEqual([]);
    const notMade = dockerfile.replace(/^RUN if \[ "\$APP" = gateway \].*$/m, '');
    expect(lint.lintComposeVolumes(compose, notMade)).toEqual([
      'compose service gateway: volume gateway-media is mounted at /var/lib/gateway/media, which the image does not make and give to USER 1000:1000',
    ]);
    const rootOwned = dockerfile.replace('chown -R 1000:1000 /var/lib/gateway', 'chown -R 0:0 /var/lib/gateway');
    expect(lint.lintComposeVolumes(compose, rootOwned)).toHaveLength(1);
    const elsewhere = compose.replace('gateway-media:/var/lib/gateway/media', 'gateway-media:/app/media');
    expect(lint.lintComposeVolumes(elsewhere, dockerfile)).toHaveLength(1);
  });

  it('gives the gateway in compose the media folder the Kubernetes manifests use, on its volume', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker/compose.yml'), 'utf8')) as {
      services: Record<string, { environment: Record<string, string>; volumes?: string[] }>;
    };
    const gateway = compose.services.gateway;
    const k8s = parseAllDocuments(readFileSync(join(ROOT, 'k8s/base/config.yaml'), 'utf8')).map(
      (d) => d.toJSON() as { metadata: { name: string }; data: Record<string, string> },
    );
    const mediaDir = k8s.find((m) => m.metadata.name === 'gateway-config')!.data.MEDIA_DIR;
    expect({ env: gateway.environment.MEDIA_DIR, mounted: gateway.volumes?.some((v) => v.endsWith(`:${mediaDir}`)) }).toEqual({ env: mediaDir, mounted: true });
  });
});
