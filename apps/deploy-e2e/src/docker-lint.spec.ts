import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deployableApps, ROOT } from './workspace';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const lint = require(join(ROOT, 'docker/lint.js')) as {
  lintAll(): string[];
  lintDockerfile(text: string, apps?: string[]): string[];
  lintCompose(text: string): string[];
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
});
