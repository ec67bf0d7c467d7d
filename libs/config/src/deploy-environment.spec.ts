import 'reflect-metadata';
import { IsIn } from 'class-validator';
import { DeployEnvironmentSettings, NotSandboxInProduction } from './deploy-environment';
import { loadConfig } from './load-config';

class ProviderSettings extends DeployEnvironmentSettings {
  @IsIn(['real', 'sandbox'])
  @NotSandboxInProduction('real')
  PROVIDER: 'real' | 'sandbox' = 'sandbox';
}

describe('NotSandboxInProduction', () => {
  it('refuses a sandbox provider with DEPLOY_ENV=production, naming the setting and the way out', () => {
    expect(() => loadConfig(ProviderSettings, { DEPLOY_ENV: 'production' })).toThrow(
      'Setting PROVIDER is invalid (must not be sandbox with DEPLOY_ENV=production, where it would report sends that never leave; set real, or ALLOW_SANDBOX_PROVIDER=true if that is meant); it is unset, so "sandbox" (the default).',
    );
  });

  it('names the value given', () => {
    expect(() => loadConfig(ProviderSettings, { DEPLOY_ENV: 'production', PROVIDER: 'sandbox' })).toThrow(/; got "sandbox"\.$/);
  });

  it('allows it when said so, elsewhere, and the real provider always', () => {
    expect(loadConfig(ProviderSettings, { DEPLOY_ENV: 'production', ALLOW_SANDBOX_PROVIDER: 'true' }).PROVIDER).toBe('sandbox');
    expect(loadConfig(ProviderSettings, { DEPLOY_ENV: 'staging' }).PROVIDER).toBe('sandbox');
    expect(loadConfig(ProviderSettings, {}).PROVIDER).toBe('sandbox');
    expect(loadConfig(ProviderSettings, { DEPLOY_ENV: 'production', PROVIDER: 'real' }).PROVIDER).toBe('real');
    expect(() => loadConfig(ProviderSettings, { DEPLOY_ENV: 'prod' })).toThrow(/^Setting DEPLOY_ENV is invalid/);
    expect(() => loadConfig(ProviderSettings, { ALLOW_SANDBOX_PROVIDER: 'yes' })).toThrow(/^Setting ALLOW_SANDBOX_PROVIDER is invalid/);
  });
});
