// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

/** Settings of the Graph API provider (GATEWAY_PROVIDER=cloud). */
export class CloudConfig {
  /** Base address of the Graph API (tests and benchmarks point it at a loopback fake). */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CLOUD_API_BASE_URL: string = 'https://graph.facebook.com';

  /** Graph API version the cloud adapter calls, whatever `version` header the client sent. */
  @IsString()
  @Matches(/^v\d{1,3}\.\d{1,2}$/)
  CLOUD_API_VERSION: string = 'v23.0';

  /** How long one call to the network may take, in milliseconds. */
  @IsInt()
  @Min(100)
  @Max(120_000)
  CLOUD_API_TIMEOUT_MS: number = 15_000;

  /** Keep-alive connections to the network per process. */
  @IsInt()
  @Min(1)
  @Max(1024)
  CLOUD_API_CONNECTIONS: number = 64;
}
