import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import type { Response } from 'express';
import { GatewayApi } from '../common/api-version.guard';
import type { PageLocation } from '@app/pagination';
import { PageAddress, pagingOf, type CursorPage } from '../common/cursor-page';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { TemplateListQuery } from './template-query.dto';
import { CREATE_TEMPLATE_DOCS, CreateTemplateBody, TEMPLATE_MODELS } from './template.dto';
import { TemplateCreated, TemplatesPage, TemplateView } from './template-answers.dto';
import { TemplatesService } from './templates.service';

@GatewayApi('Templates')
@ApiExtraModels(...TEMPLATE_MODELS)
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Post()
  @ApiOperation({ summary: 'Create a template (201), or get the existing one with the same name and language unchanged (200)' })
  @ApiBody(CREATE_TEMPLATE_DOCS)
  @ApiCreatedResponse({ type: TemplateCreated, description: 'Created, in review.' })
  @ApiOkResponse({ type: TemplateCreated, description: 'One with the same name and language exists: it, unchanged.' })
  @ApiErrors(413, 415)
  async create(@CurrentPhone() phone: PhoneContext, @Body() body: CreateTemplateBody, @Res({ passthrough: true }) res: Response): Promise<TemplateCreated> {
    const { created, template } = await this.templates.create(phone, body);
    res.status(created ? 201 : 200);
    return template;
  }

  @Get()
  @ApiOperation({ summary: "The account's templates, newest first" })
  @ApiOkResponse({ type: TemplatesPage })
  list(@CurrentPhone() phone: PhoneContext, @Query() query: TemplateListQuery, @PageAddress() location: PageLocation): Promise<CursorPage<TemplateView>> {
    return this.templates.list(phone, query, pagingOf(query, location));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One template' })
  @ApiOkResponse({ type: TemplateView })
  @ApiErrors(404)
  find(@CurrentPhone() phone: PhoneContext, @Param('id') id: string): Promise<TemplateView> {
    return this.templates.find(phone, id);
  }
}
