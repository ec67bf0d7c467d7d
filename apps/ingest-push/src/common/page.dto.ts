import { ApiProperty } from '@nestjs/swagger';
import type { Type } from '@nestjs/common';

/** One link of a page envelope's `links`. */
export class PageLinkDto {
  @ApiProperty({ type: String, nullable: true, example: 'http://localhost:3003/api/pushm/bulk?page=2' })
  url!: string | null;

  @ApiProperty({ example: '2' })
  label!: string;

  @ApiProperty()
  active!: boolean;
}

/**
 * The schema of libs/pagination's envelope (`paginate`) around `item`: one named class per item type,
 * so `/docs-json` shows each list's rows. Only a type for Swagger; answers stay the plain envelope.
 */
export function PageOf<T>(item: Type<T>, name: string): Type<unknown> {
  class Page {
    @ApiProperty({ example: 1 }) current_page!: number;
    @ApiProperty({ type: [item] }) data!: T[];
    @ApiProperty() first_page_url!: string;
    @ApiProperty({ type: Number, nullable: true, example: 1 }) from!: number | null;
    @ApiProperty({ example: 1 }) last_page!: number;
    @ApiProperty() last_page_url!: string;
    @ApiProperty({ type: [PageLinkDto] }) links!: PageLinkDto[];
    @ApiProperty({ type: String, nullable: true }) next_page_url!: string | null;
    @ApiProperty() path!: string;
    @ApiProperty({ example: 15 }) per_page!: number;
    @ApiProperty({ type: String, nullable: true }) prev_page_url!: string | null;
    @ApiProperty({ type: Number, nullable: true, example: 1 }) to!: number | null;
    @ApiProperty({ example: 1 }) total!: number;
  }
  Object.defineProperty(Page, 'name', { value: name });
  return Page;
}
