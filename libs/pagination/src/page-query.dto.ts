import { ApiPropertyOptional } from '@nestjs/swagger';
import { Expose } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';
import { PAGE_PARAMETERS, pageParameterError, type PageParameter } from './page-query';

/** class-validator's check of `page` or `per_page` (named by the property), worded as `parsePageQuery` words it. */
export const IsPageParameter = (): PropertyDecorator =>
  ValidateBy({
    name: 'isPageParameter',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => pageParameterError(value, args?.property as PageParameter) === null,
      defaultMessage: (args?: ValidationArguments) => pageParameterError(args?.value, args?.property as PageParameter) ?? '',
    },
  });

/** The OpenAPI schema of `page` or `per_page`, from the same bounds the check uses. */
export const pageParameterSchema = (field: PageParameter) => ({
  type: 'integer' as const,
  minimum: 1,
  maximum: PAGE_PARAMETERS[field].max,
  default: PAGE_PARAMETERS[field].fallback,
});

/**
 * The paging parameters of a list's query DTO: a list's query class extends it, so the global
 * ValidationPipe refuses unknown parameters (`per_page[]=5`, named as sent) along with bad values.
 * The values stay text; `@PageRequest()` turns them into numbers and the page's address.
 * `@Expose()` keeps them when a subclass exposes only its declared fields.
 */
export class PageQueryDto {
  @ApiPropertyOptional(pageParameterSchema('page'))
  @Expose()
  @IsPageParameter()
  page?: string;

  @ApiPropertyOptional(pageParameterSchema('per_page'))
  @Expose()
  @IsPageParameter()
  per_page?: string;
}
