/** The PostgreSQL schema that holds every table of the app. */
export const DOCSTORE_SCHEMA = 'docstore';
