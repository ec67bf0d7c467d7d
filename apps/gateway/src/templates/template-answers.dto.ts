import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '../common/cursor-page.dto';
import { TEMPLATE_CATEGORIES } from '../network/chat-provider';

const ID = { description: "The network's 16-digit template id.", example: '1234567890123456' } as const;
const STATUS = { description: "The network's review state: PENDING, APPROVED, REJECTED…", example: 'APPROVED' } as const;

/** POST api/Templates: the template made (201) or the one that exists (200). */
export class TemplateCreated {
  @ApiProperty(ID)
  id!: string;

  @ApiProperty(STATUS)
  status!: string;

  @ApiProperty({ enum: TEMPLATE_CATEGORIES, example: 'UTILITY' })
  category!: string;
}

/** A template as stored: its components as created. */
export class TemplateView extends TemplateCreated {
  @ApiProperty({ example: 'order_shipped' })
  name!: string;

  @ApiProperty({ example: 'en_US' })
  language!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'The components as created (HEADER, BODY, FOOTER, BUTTONS).',
  })
  components!: unknown[];
}

export const TemplatesPage = PageOf(TemplateView, 'TemplatesPage');
