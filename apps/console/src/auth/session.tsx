import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { cleanCredentials, loadCredentials, saveCredentials, servicesOf, STORAGE_KEY, type Credentials, type Service } from './credentials';

interface Session {
  credentials: Credentials;
  services: Service[];
  signIn(c: Credentials): void;
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [credentials, setCredentials] = useState<Credentials>(() => loadCredentials(sessionStorage));
  const signIn = useCallback((c: Credentials) => {
    const clean = cleanCredentials(c);
    saveCredentials(sessionStorage, clean);
    setCredentials(clean);
  }, []);
  const signOut = useCallback(() => {
    sessionStorage.removeItem(STORAGE_KEY);
    // Cached answers belong to the credentials that fetched them.
    queryClient.clear();
    setCredentials({});
  }, [queryClient]);
  const value = useMemo(() => ({ credentials, services: servicesOf(credentials), signIn, signOut }), [credentials, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
