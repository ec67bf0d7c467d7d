/** The PostgreSQL schema that holds every table of the app. */
export const INGEST_PUSH_SCHEMA = 'ingest_push';
