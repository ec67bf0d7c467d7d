export * from './data-source-options';
export * from './database.module';
export * from './migrate';
export * from './pruner.service';
export * from './sql';
export * from './sql.service';
export * from './timestamp';
