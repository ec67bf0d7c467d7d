// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, IsUrl, Max, Min } from 'class-validator';

/** PostgreSQL settings: DatabaseModule connects with them; an app lists the class among its settings (libs/server's CoreModule does). */
export class DatabaseConfig {
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL!: string;

  @IsInt() @Min(1) @Max(200)
  DB_POOL_SIZE: number = 20;
}
