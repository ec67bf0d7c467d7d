import { ApiProperty } from '@nestjs/swagger';

/** GET api/Profiles: the business profile, as the network holds it (its fields as set, and `messaging_product`). */
export class ProfileList {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ messaging_product: 'whatsapp', about: 'Open 9-18', vertical: 'RETAIL', websites: ['https://shop.example.com'] }],
  })
  data!: Record<string, unknown>[];
}
