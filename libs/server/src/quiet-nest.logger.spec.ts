import type { LoggerService } from '@nestjs/common';
import { QuietNestLogger } from './quiet-nest.logger';

describe('QuietNestLogger', () => {
  const calls: Array<[string, unknown[]]> = [];
  const record =
    (level: string) =>
    (...args: unknown[]) =>
      void calls.push([level, args]);
  const inner: LoggerService = { log: record('info'), error: record('error'), warn: record('warn'), debug: record('debug') };
  const logger = new QuietNestLogger(inner);
  beforeEach(() => (calls.length = 0));

  it("sends Nest's module and route lines to debug", () => {
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/api, GET} route', 'RouterExplorer');
    expect(calls.map(([level]) => level)).toEqual(['debug', 'debug']);
  });

  it('keeps every other line at its level', () => {
    logger.log('The schema is up to date.', 'Migrations');
    logger.warn('careful', 'Anything');
    logger.error('broken', 'stack', 'ExceptionsHandler');
    expect(calls).toEqual([
      ['info', ['The schema is up to date.', 'Migrations']],
      ['warn', ['careful', 'Anything']],
      ['error', ['broken', 'stack', 'ExceptionsHandler']],
    ]);
  });
});
