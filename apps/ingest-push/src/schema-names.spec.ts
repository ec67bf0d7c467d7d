import { schemaNameClashes } from '@app/testkit';

// Swagger keeps one schema per class name: two DTO classes of one name leave one shape in /docs-json for both,
// and the console's generated types wrong for one of them.
it('gives every DTO class of src/ its own name', () => {
  expect(schemaNameClashes(__dirname)).toEqual([]);
});
