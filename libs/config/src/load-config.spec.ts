// Implicit conversion reads design:type, which decorators only record once reflect-metadata is loaded.
import 'reflect-metadata';
import { IsIn, IsInt, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { InvalidConfigError, loadConfig } from './load-config';

const DB = 'postgres://user:pw@db.internal:5432/app';

class AppConfig {
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL!: string;

  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE: number = 20;

  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE: number = 1000;

  @IsIn(['info', 'debug'])
  LOG_LEVEL: string = 'info';

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  @IsString()
  @Matches(/^[\w:.-]*$/)
  REDIS_PREFIX: string = '';

  @IsInt()
  @Min(0)
  CACHE_SECONDS: number = 30;

  @IsString()
  NAME: string = 'app';

  @IsString()
  @Matches(/^k\d:[A-Za-z0-9+/=]{44}$/)
  ENCRYPTION_KEYS: string = 'k1:' + 'A'.repeat(43) + '=';
}

const failure = (env: NodeJS.ProcessEnv): InvalidConfigError => {
  try {
    loadConfig(AppConfig, env, { PORT: 3001 });
  } catch (error) {
    return error as InvalidConfigError;
  }
  throw new Error('expected the config to be refused');
};

describe('loadConfig', () => {
  it('refuses a missing DATABASE_URL, naming it', () => {
    const error = failure({});
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect(error.name).toBe('InvalidConfigError');
    expect(error.message).toContain('DATABASE_URL');
    expect(error.message).toContain('missing');
  });

  it('treats an empty value as missing', () => {
    expect(failure({ DATABASE_URL: '' }).message).toContain('DATABASE_URL');
  });

  it("applies defaults, the app's defaults over the class's, and the environment over both", () => {
    expect(loadConfig(AppConfig, { DATABASE_URL: DB, PORT: '4000' }, { PORT: 3001 }).PORT).toBe(4000);
    expect(loadConfig(AppConfig, { DATABASE_URL: DB, PORT: '' }, { PORT: 3001 }).PORT).toBe(3001);
    expect(() => loadConfig(AppConfig, { DATABASE_URL: DB }, { PORT: 'x' })).toThrow(/PORT/);
    const config = loadConfig(AppConfig, { DATABASE_URL: DB }, { PORT: 3001 });
    expect(config).toBeInstanceOf(AppConfig);
    expect(config).toMatchObject({
      DATABASE_URL: DB,
      PORT: 3001,
      DB_POOL_SIZE: 20,
      REDIS_URL: 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: 1000,
      CACHE_SECONDS: 30,
      NAME: 'app',
    });
  });

  it('converts numbers and keeps strings as strings', () => {
    const config = loadConfig(AppConfig, { DATABASE_URL: DB, PORT: '8080', RATE_LIMIT_PER_MINUTE: '3', CACHE_SECONDS: '0', NAME: '42', REDIS_PREFIX: '123' });
    expect(config.PORT).toBe(8080);
    expect(config.RATE_LIMIT_PER_MINUTE).toBe(3);
    expect(config.CACHE_SECONDS).toBe(0);
    expect(config.NAME).toBe('42');
    expect(config.REDIS_PREFIX).toBe('123');
  });

  it('reads only declared settings', () => {
    const config = loadConfig(AppConfig, { DATABASE_URL: DB, HOME: '/root', PATH: '/bin' });
    expect(config).not.toHaveProperty('HOME');
    expect(config).not.toHaveProperty('PATH');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['DB_POOL_SIZE', '1.5'],
    ['DB_POOL_SIZE', '201'],
    ['LOG_LEVEL', 'loud'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['REDIS_PREFIX', 'has space'],
    ['CACHE_SECONDS', '-1'],
  ])('refuses %s=%s, naming the setting and the value', (name, value) => {
    const error = failure({ DATABASE_URL: DB, [name]: value });
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect(error.message).toContain(name);
    expect(error.message).toContain(value);
  });

  it('refuses a DATABASE_URL that is not a postgres URL without showing its password', () => {
    const message = failure({ DATABASE_URL: 'mysql://admin:hunter2@db/app' }).message;
    expect(message).toContain('DATABASE_URL');
    expect(message).toContain('mysql://admin:***@db/app');
    expect(message).not.toContain('hunter2');
  });

  it('names a bad key setting without printing the key material', () => {
    const message = failure({ DATABASE_URL: DB, ENCRYPTION_KEYS: 'k1:c2VjcmV0LWtleS1tYXRlcmlhbA' }).message;
    expect(message).toContain('ENCRYPTION_KEYS');
    expect(message).not.toContain('c2VjcmV0LWtleS1tYXRlcmlhbA');
  });
});
