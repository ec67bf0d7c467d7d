// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min, Validate, ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';

/** A setting that may not be below another one (named in the constraint's arguments). */
@ValidatorConstraint({ name: 'notBelowSetting' })
class NotBelowSetting implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const other = (args.object as Record<string, unknown>)[args.constraints[0] as string];
    return typeof value !== 'number' || typeof other !== 'number' || value >= other;
  }

  defaultMessage(args: ValidationArguments): string {
    const name = args.constraints[0] as string;
    return `must be at least ${name} (${String((args.object as Record<string, unknown>)[name])})`;
  }
}

/** Limits on JSON request bodies, read by the request gate after authentication. */
export class RequestBodyConfig {
  /** Largest accepted JSON request body, in bytes (stream routes set their own limit). */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 5 * 1024 * 1024;

  /** Most values (array elements, object members) one JSON body may hold; bounds the cost of checking it. */
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  BODY_MAX_JSON_VALUES: number = 500_000;

  /** The window a JSON body's rate is averaged over, in seconds: a body must bring BODY_MIN_BYTES_PER_SECOND over every such window (the first one included); 408 after. */
  @IsInt()
  @Min(1)
  @Max(3600)
  BODY_TIMEOUT_SECONDS: number = 10;

  /** The slowest a JSON body may arrive, averaged over BODY_TIMEOUT_SECONDS (Apache mod_reqtimeout's MinRate, nginx's client_body_timeout). */
  @IsInt()
  @Min(1)
  BODY_MIN_BYTES_PER_SECOND: number = 1000;

  /** The longest a JSON body may take in all, however steadily it arrives (mod_reqtimeout's maxtimeout); 408 after. */
  @IsInt()
  @Min(1)
  @Max(3600)
  BODY_MAX_SECONDS: number = 60;

  /** Bytes of request bodies one process receives at once (declared lengths, or bytes so far when chunked); more get 503 with Retry-After. */
  @IsInt()
  @Validate(NotBelowSetting, ['BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL'])
  BODY_IN_FLIGHT_BYTES: number = 32 * 1024 * 1024;

  /** Bytes of request bodies one credential (one client address on public routes) sends a process at once; more get 503 with Retry-After. */
  @IsInt()
  @Validate(NotBelowSetting, ['BODY_LIMIT_BYTES'])
  BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL: number = 8 * 1024 * 1024;
}
