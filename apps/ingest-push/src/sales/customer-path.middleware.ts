import type { NextFunction, Request, Response } from 'express';

const CUSTOMER_PATH = /^(\/DataInserterSales\/api\/sales\/customers\/)[^?]*/i;

/**
 * The request log writes `originalUrl` when the answer ends; on the customer routes the path holds a CPF/CNPJ,
 * personal data, so it is logged as `…/customers/[redacted]`. Routing reads `url`, which stays.
 */
export function redactCustomerPath(req: Request, _res: Response, next: NextFunction): void {
  req.originalUrl = req.originalUrl.replace(CUSTOMER_PATH, '$1[redacted]');
  next();
}
