export * from './database.config';
export * from './database.module';
export * from './migrate';
export * from './sql';
export * from './sql.service';
export * from './timestamp';
export * from './command-line';
