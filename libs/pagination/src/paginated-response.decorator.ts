import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { DEFAULT_PER_PAGE } from './page-query';

/** One entry of the envelope's `links`: Previous, each page number or `...`, Next. */
export class PageLinkDto {
  @ApiProperty({ type: String, nullable: true, example: 'https://docstore.example.com/api/v1/things?page=2' })
  url!: string | null;

  @ApiProperty({ example: '2' })
  label!: string;

  @ApiProperty()
  active!: boolean;
}

const integer = { type: 'integer' } as const;
const nullableInteger = { type: 'integer', nullable: true } as const;
const url = { type: 'string', example: 'https://docstore.example.com/api/v1/things?page=1' } as const;
const nullableUrl = { type: 'string', nullable: true } as const;

/**
 * Documents a 200 answer as the paginated envelope (see `paginate`) of `item`: the envelope is
 * written out whole for each list rather than composed with `allOf`, so a checker that closes
 * every object schema (`additionalProperties: false`) reads it the way clients do.
 */
export function ApiPaginatedResponse(item: Type<unknown>, description = 'One page of the list.'): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(item, PageLinkDto),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: [
          'current_page',
          'data',
          'first_page_url',
          'from',
          'last_page',
          'last_page_url',
          'links',
          'next_page_url',
          'path',
          'per_page',
          'prev_page_url',
          'to',
          'total',
        ],
        properties: {
          current_page: { ...integer, example: 1 },
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          first_page_url: url,
          from: { ...nullableInteger, example: 1 },
          last_page: { ...integer, example: 1 },
          last_page_url: url,
          links: { type: 'array', items: { $ref: getSchemaPath(PageLinkDto) } },
          next_page_url: nullableUrl,
          path: url,
          per_page: { ...integer, example: DEFAULT_PER_PAGE },
          prev_page_url: nullableUrl,
          to: { ...nullableInteger, example: 1 },
          total: { ...integer, example: 1 },
        },
      },
    }),
  );
}
