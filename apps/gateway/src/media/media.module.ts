import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { LARGEST_MEDIA } from './media-type';
import { MediaController } from './media.controller';
import { MediaUploadEngine } from './media-upload.engine';
import { MediaRepository } from './media.repository';
import { MediaService } from './media.service';

/** MediaService on its own, so multer's options (built with it) and the controller share one instance. */
@Module({ providers: [MediaService, MediaRepository], exports: [MediaService] })
class MediaServiceModule {}

@Module({
  imports: [
    MediaServiceModule,
    MulterModule.registerAsync({
      imports: [MediaServiceModule],
      inject: [MediaService],
      useFactory: (media: MediaService) => ({
        storage: new MediaUploadEngine(media),
        limits: { files: 1, fileSize: LARGEST_MEDIA, fields: 4, fieldSize: 256, parts: 6 },
      }),
    }),
  ],
  controllers: [MediaController],
})
export class MediaModule {}
