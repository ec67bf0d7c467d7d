import { IsIn, IsOptional, registerDecorator, type ValidationArguments } from 'class-validator';

/**
 * Settings of the environment an app is deployed to, for the features whose providers have a `sandbox`: in
 * production a sandbox answers "sent" for messages and pushes that never leave, so it is refused there unless
 * the operator says it is meant. NODE_ENV is not the key: every image sets it to `production`, staging's too.
 */
export class DeployEnvironmentSettings {
  /** Where this runs; `production` refuses sandbox providers. Unset: no such check. */
  @IsOptional()
  @IsIn(['development', 'staging', 'production'])
  DEPLOY_ENV?: 'development' | 'staging' | 'production';

  /** `true` lets production run a sandbox provider (a rehearsal with production settings). */
  @IsIn(['true', 'false'])
  ALLOW_SANDBOX_PROVIDER: 'true' | 'false' = 'false';
}

/** On a provider setting of a class extending DeployEnvironmentSettings: `sandbox` is refused when DEPLOY_ENV=production. */
export function NotSandboxInProduction(real: string): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'notSandboxInProduction',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          const settings = args.object as DeployEnvironmentSettings;
          return value !== 'sandbox' || settings.DEPLOY_ENV !== 'production' || settings.ALLOW_SANDBOX_PROVIDER === 'true';
        },
        defaultMessage: () =>
          `must not be sandbox with DEPLOY_ENV=production, where it would report sends that never leave; set ${real}, or ALLOW_SANDBOX_PROVIDER=true if that is meant`,
      },
    });
}
