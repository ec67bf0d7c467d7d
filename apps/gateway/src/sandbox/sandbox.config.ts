// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, IsString, Max, Min } from 'class-validator';

/** Settings of the in-process network (GATEWAY_PROVIDER=sandbox). */
export class SandboxConfig {
  /** Sandbox: milliseconds between sent, delivered and read. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SANDBOX_STATUS_DELAY_MS: number = 1000;

  /** Sandbox: milliseconds before a new template is reviewed. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SANDBOX_REVIEW_DELAY_MS: number = 5000;

  /** Sandbox: where uploaded media are stored (a volume every replica mounts). */
  @IsString()
  MEDIA_DIR: string = '.data/media';
}
