import { type Type } from '@nestjs/common';
import { ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { DEFAULT_PER_PAGE } from './page-query';

/** One entry of the envelope's `links`: Previous, each page number or `...`, Next. */
export class PageLinkDto {
  @ApiProperty({ type: String, nullable: true, example: 'https://api.example.com/v1/things?page=2' })
  url!: string | null;

  @ApiProperty({ example: '2' })
  label!: string;

  @ApiProperty()
  active!: boolean;
}

const URL_EXAMPLE = 'https://api.example.com/v1/things?page=1';
const pages = new Map<Type<unknown>, Type<unknown>>();

/**
 * The schema of the paginated envelope (see `paginate`) around `item`: one named class per item type
 * (`DocumentDto` → `DocumentPage`, or `name`), so `/docs-json` shows each list's rows and a DTO can nest a page.
 * Only a type for Swagger; answers stay the plain envelope.
 */
export function PageOf(item: Type<unknown>, name = `${item.name.replace(/Dto$/, '')}Page`): Type<unknown> {
  const known = pages.get(item);
  if (known) return known;
  class Page {
    @ApiProperty({ type: 'integer', example: 1 }) current_page!: number;
    @ApiProperty({ type: [item] }) data!: unknown[];
    @ApiProperty({ example: URL_EXAMPLE }) first_page_url!: string;
    @ApiProperty({ type: 'integer', nullable: true, example: 1 }) from!: number | null;
    @ApiProperty({ type: 'integer', example: 1 }) last_page!: number;
    @ApiProperty({ example: URL_EXAMPLE }) last_page_url!: string;
    @ApiProperty({ type: [PageLinkDto] }) links!: PageLinkDto[];
    @ApiProperty({ type: String, nullable: true }) next_page_url!: string | null;
    @ApiProperty({ example: URL_EXAMPLE }) path!: string;
    @ApiProperty({ type: 'integer', example: DEFAULT_PER_PAGE }) per_page!: number;
    @ApiProperty({ type: String, nullable: true }) prev_page_url!: string | null;
    @ApiProperty({ type: 'integer', nullable: true, example: 1 }) to!: number | null;
    @ApiProperty({ type: 'integer', example: 1 }) total!: number;
  }
  Object.defineProperty(Page, 'name', { value: name });
  pages.set(item, Page);
  return Page;
}

/** Documents a 200 answer as the paginated envelope of `item` (`PageOf`). */
export function ApiPaginatedResponse(item: Type<unknown>, description = 'One page of the list.'): MethodDecorator & ClassDecorator {
  return ApiOkResponse({ type: PageOf(item), description });
}
