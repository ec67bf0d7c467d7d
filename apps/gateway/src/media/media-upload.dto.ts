import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { MessagingProduct, Rule } from '../common/rule.decorator';
import { MEDIA_FILE_FIELD } from './media-file.interceptor';

/** The multipart form of POST api/Medias: its text fields (multer takes the file part, `File`, before validation). */
export class MediaUploadForm {
  @ApiProperty({ example: 'whatsapp', description: "The gateway's network (GATEWAY_NETWORK)." })
  @MessagingProduct()
  messaging_product!: string;

  @ApiPropertyOptional({
    example: 'image/png',
    maxLength: 255,
    description: "The file's MIME type as the Cloud API's form carries it; ignored: the type is read from the file's bytes.",
  })
  @IsOptional()
  @IsString()
  type?: string;

  /** multer takes the file part off the form before the form is validated: what is left here is a text field of that name. */
  @ApiProperty({ type: 'string', format: 'binary', description: 'The file, up to the largest size of its kind.' })
  @Rule(MEDIA_FILE_FIELD, (v) => (v === undefined ? null : 'must be the file itself, not a text field'))
  [MEDIA_FILE_FIELD]?: never;
}
