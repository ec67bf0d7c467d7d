import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { schemaNameClashes } from './schema-names';

describe('schemaNameClashes', () => {
  let src: string;
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(src, file)), { recursive: true });
    writeFileSync(path.join(src, file), text);
  };
  const dto = (name: string) => `import { ApiProperty } from '@nestjs/swagger';\nexport class ${name} {\n  @ApiProperty() type!: string;\n}\n`;

  beforeEach(() => {
    src = mkdtempSync(path.join(tmpdir(), 'schema-names-'));
    write('templates/template.dto.ts', dto('TemplateBodyComponent'));
    write('messages/message.dto.ts', dto('BodyComponent'));
    // Not a DTO file: a class of the same name there names no schema.
    write('messages/body.ts', 'export class TemplateBodyComponent {}\n');
    // Nor does a test.
    write('messages/message.dto.spec.ts', dto('BodyComponent'));
  });
  afterEach(() => rmSync(src, { recursive: true, force: true }));

  it('finds none when every DTO class has its own name', () => {
    expect(schemaNameClashes(src)).toEqual([]);
  });

  it('names a class two DTO files declare, with both files', () => {
    write('templates/template.dto.ts', dto('BodyComponent'));
    expect(schemaNameClashes(src)).toEqual([`BodyComponent: ${path.join('messages', 'message.dto.ts')}, ${path.join('templates', 'template.dto.ts')}`]);
  });
});
