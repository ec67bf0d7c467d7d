// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Limits on JSON request bodies, read by the request gate after authentication. */
export class RequestBodyConfig {
  /** Largest accepted JSON request body, in bytes (stream routes set their own limit). */
  @IsInt() @Min(1024)
  BODY_LIMIT_BYTES: number = 5 * 1024 * 1024;

  /** Most values (array elements, object members) one JSON body may hold; bounds the cost of checking it. */
  @IsInt() @Min(100) @Max(10_000_000)
  BODY_MAX_JSON_VALUES: number = 500_000;

  /** Seconds a JSON body gets to start arriving before it must keep BODY_MIN_BYTES_PER_SECOND (Apache mod_reqtimeout's `body=`); 408 after. */
  @IsInt() @Min(1) @Max(3600)
  BODY_TIMEOUT_SECONDS: number = 10;

  /** Each this many bytes of a JSON body extend its deadline by one second (mod_reqtimeout's MinRate). */
  @IsInt() @Min(1)
  BODY_MIN_BYTES_PER_SECOND: number = 1000;
}
