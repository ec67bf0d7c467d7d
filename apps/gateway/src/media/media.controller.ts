import { Body, HttpCode, Post, UploadedFile, UseInterceptors } from '@nestjs/common';
import { StreamBody } from '@app/auth';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { GatewayApi } from '../common/api-version.guard';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { MediaUploaded } from './media-answers.dto';
import { MediaFileInterceptor } from './media-file.interceptor';
import { LARGEST_MEDIA } from './media-type';
import { MediaService, type ReceivedMedia } from './media.service';

@GatewayApi('Medias')
export class MediaController {
  constructor(private readonly media: MediaService) {}

  @Post()
  @HttpCode(200)
  // multer reads the multipart stream (after authentication); a declared length beyond the largest kind plus the form's own bytes is refused at once.
  @StreamBody({ limit: LARGEST_MEDIA + 64 * 1024 })
  @UseInterceptors(MediaFileInterceptor)
  @ApiOperation({ summary: 'Upload a file (streamed; its type read from its bytes)' })
  @ApiConsumes('multipart/form-data')
  @ApiOkResponse({ type: MediaUploaded })
  @ApiErrors(409, 413)
  @ApiBody({
    schema: {
      type: 'object',
      required: ['messaging_product', 'File'],
      properties: { messaging_product: { type: 'string' }, File: { type: 'string', format: 'binary' } },
    },
  })
  upload(@CurrentPhone() phone: PhoneContext, @Body() fields: Record<string, unknown>, @UploadedFile() file?: ReceivedMedia): Promise<MediaUploaded> {
    return this.media.complete(phone, fields ?? {}, file);
  }
}
