-- The three services' database roles, with least privilege: each may connect to this database and
-- owns its own schema (where its migrations create its tables), and nothing else. Run it once as
-- an administrator, connected to the services' database, with the three passwords set first:
--
--   psql -v ON_ERROR_STOP=1 "postgres://admin@db:5432/services" \
--     -c "SET services.docstore_password = '...'" -c "SET services.gateway_password = '...'" \
--     -c "SET services.ingest_push_password = '...'" -f k8s/database-roles.sql
--
-- Running it again changes nothing but the passwords. Each Secret's DATABASE_URL then names its
-- role: postgres://docstore:<password>@db:5432/services (k8s/base/secrets.yaml).

BEGIN;

DO $$
DECLARE
  r text;
  password text;
BEGIN
  FOREACH r IN ARRAY ARRAY['docstore', 'gateway', 'ingest_push'] LOOP
    password := current_setting('services.' || r || '_password', true);
    IF password IS NULL OR password = '' THEN
      RAISE EXCEPTION 'Set services.%_password before running database-roles.sql (see its first lines).', r;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I LOGIN', r);
    END IF;
    -- No superuser, no role or database creation, no bypass of row security, no replication.
    EXECUTE format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS NOREPLICATION NOINHERIT PASSWORD %L', r, password);
    -- The schema the app migrates, owned by its role (the app creates it only when it is missing).
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', r, r);
    EXECUTE format('ALTER SCHEMA %I OWNER TO %I', r, r);
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', r);
  END LOOP;

  -- Only these roles (and the administrators) may connect; nobody creates schemas in it.
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO docstore, gateway, ingest_push', current_database());
  -- Sales ingestion merges each file through a temporary staging table.
  EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO ingest_push', current_database());
END
$$;

-- No role writes into public (PostgreSQL 15 and later already keep it so).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

COMMIT;
