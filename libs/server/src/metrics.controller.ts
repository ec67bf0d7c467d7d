import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@app/auth';
import { Metrics } from '@app/observability';
import type { Response } from 'express';

/**
 * `GET /metrics`: Prometheus text format, for the scraper inside the cluster. The
 * Ingresses route only the API paths, so it is never exposed to the internet.
 */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(@Res() res: Response): Promise<void> {
    const text = await this.metrics.render();
    res.setHeader('Content-Type', this.metrics.contentType);
    res.end(text);
  }
}
