import { ApiProperty } from '@nestjs/swagger';

/** POST api/Medias: the id to send the file by. */
export class MediaUploaded {
  @ApiProperty({ description: "The network's 16-digit media id.", example: '1234567890123456' })
  id!: string;
}
