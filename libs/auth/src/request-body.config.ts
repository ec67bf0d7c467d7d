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
}
