// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of the document endpoints. */
export class DocumentsConfig {
  /** Most documents one bulk request may carry. */
  @IsInt()
  @Min(1)
  @Max(10000)
  BULK_MAX_ITEMS: number = 5000;
}
