import SwaggerParser from '@apidevtools/swagger-parser';

/** An operation as `METHOD /path`, the way the checks name it. */
export type OperationName = `${Uppercase<string>} /${string}`;

export interface OpenApiExpectations {
  /** The paginated lists: each must declare `page` and `per_page`, and nothing else may. */
  lists: OperationName[];
  /** POST/PUT/PATCH operations that read no body; every other write must describe its body. */
  bodiless?: OperationName[];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: object }> };
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
  security?: unknown[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/**
 * What keeps an app's OpenAPI document from being used as is (empty when nothing does):
 * the OpenAPI schema's own rules (checked by @apidevtools/swagger-parser), then what Swagger
 * UI's "Try it out" needs: every path parameter declared, no parameter declared twice
 * (headers case-insensitively), a request schema for every body, `page`/`per_page` on every
 * list, the success answer, and each error answer documented with a body schema (401 wherever credentials are needed).
 */
export async function openApiProblems(document: unknown, expect: OpenApiExpectations): Promise<string[]> {
  const problems: string[] = [];
  try {
    await SwaggerParser.validate(structuredClone(document) as Exclude<Parameters<typeof SwaggerParser.validate>[0], string>);
  } catch (error) {
    problems.push(`not a valid OpenAPI document: ${(error as Error).message}`);
  }
  const paths = (document as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
  const paged = new Set<string>();
  const operations = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const name = `${method.toUpperCase()} ${path}`;
      operations.add(name);
      const say = (problem: string): void => void problems.push(`${name}: ${problem}`);
      const parameters = op.parameters ?? [];

      const seen = new Set<string>();
      for (const p of parameters) {
        const key = `${p.in} ${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
        if (seen.has(key)) say(`the ${p.in} parameter ${p.name} is declared twice`);
        seen.add(key);
      }
      for (const [, template] of path.matchAll(/\{([^}]+)\}/g)) {
        if (!parameters.some((p) => p.in === 'path' && p.name === template && p.required)) say(`the path parameter ${template} is not declared (required)`);
      }

      const query = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
      if (query.has('page') !== query.has('per_page')) say('declares only one of page and per_page');
      if (query.has('page') && query.has('per_page')) paged.add(name);

      const content = Object.entries(op.requestBody?.content ?? {});
      if (op.requestBody && (content.length === 0 || content.some(([, media]) => !media.schema))) say('its request body has no schema');
      if (!op.requestBody && WRITES.has(method.toUpperCase()) && !expect.bodiless?.includes(name as OperationName)) say('takes a body but declares none');

      if (!Object.keys(op.responses ?? {}).some((status) => /^2\d\d$/.test(status))) say('documents no success answer');
      const errors = Object.entries(op.responses ?? {}).filter(([status]) => /^4\d\d$/.test(status));
      if (errors.length === 0) say('documents no error answer');
      for (const [status, answer] of errors) {
        if (!Object.values(answer.content ?? {}).some((media) => media.schema)) say(`its ${status} answer has no body schema`);
      }
      if ((op.security ?? []).length > 0 && !op.responses?.['401']) say('needs credentials but does not document 401');
    }
  }
  for (const list of expect.lists) {
    if (!operations.has(list)) problems.push(`${list}: no such operation`);
    else if (!paged.has(list)) problems.push(`${list}: a list that does not declare page and per_page`);
  }
  for (const name of paged) if (!expect.lists.includes(name as OperationName)) problems.push(`${name}: declares page and per_page but is not a known list`);
  for (const name of expect.bodiless ?? []) if (!operations.has(name)) problems.push(`${name}: no such operation`);
  return problems;
}
