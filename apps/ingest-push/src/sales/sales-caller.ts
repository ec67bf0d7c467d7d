import type { Request } from 'express';
import type { SalesCaller } from './sales.service';

/** The authenticated caller of a sales route (the guard has run: there is a principal). */
export function salesCaller(req: Request): SalesCaller {
  const principal = req.principal!;
  return { accountId: principal.ownerId, apiKeyId: principal.credentialId };
}
