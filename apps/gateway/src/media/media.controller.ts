import { Body, Get, HttpCode, Param, Post, StreamableFile, UploadedFile, UseInterceptors } from '@nestjs/common';
import { StreamBody } from '@app/auth';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { GatewayApi } from '../common/api-version.guard';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { MediaUploaded } from './media-answers.dto';
import { MediaDiscardInterceptor } from './media-discard.interceptor';
import { MediaFileInterceptor } from './media-file.interceptor';
import { MediaUploadForm } from './media-upload.dto';
import { LARGEST_MEDIA } from './media-type';
import { MediaService, type ReceivedMedia } from './media.service';

@GatewayApi('Medias')
export class MediaController {
  constructor(private readonly media: MediaService) {}

  @Post()
  @HttpCode(200)
  // multer reads the multipart stream (after authentication); a declared length beyond the largest kind plus the form's own bytes is refused at once.
  @StreamBody({ limit: LARGEST_MEDIA + 64 * 1024 })
  @UseInterceptors(MediaFileInterceptor, MediaDiscardInterceptor)
  @ApiOperation({ summary: 'Upload a file (streamed; its type read from its bytes)' })
  @ApiConsumes('multipart/form-data')
  @ApiOkResponse({ type: MediaUploaded })
  @ApiErrors(409, 413)
  @ApiBody({ type: MediaUploadForm })
  upload(@CurrentPhone() phone: PhoneContext, @Body() _form: MediaUploadForm, @UploadedFile() file?: ReceivedMedia): Promise<MediaUploaded> {
    return this.media.complete(phone, file);
  }

  @Get(':id')
  @ApiOperation({ summary: "A media's bytes: one the account uploaded, or one a customer sent (streamed from the network with `cloud`)" })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({
    description: 'The file, with its type as Content-Type.',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors(404)
  async download(@CurrentPhone() phone: PhoneContext, @Param('id') id: string): Promise<StreamableFile> {
    const media = await this.media.download(phone, id);
    return new StreamableFile(media.stream, { type: media.mimeType });
  }
}
