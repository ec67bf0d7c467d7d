import { useState, type FormEvent } from 'react';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import { ErrorNote } from '../../components/ErrorNote';

interface Profile {
  about?: string;
  address?: string;
  description?: string;
  email?: string;
  vertical?: string;
  websites?: string[];
}

const TEXT_FIELDS = ['about', 'address', 'description', 'email', 'vertical'] as const;

/** The phone's business profile: read and change. */
export default function ProfilePage() {
  const profile = useApiQuery<{ data: Profile[] }>('gateway', '/api/Profiles');
  const current = profile.data?.data[0];
  return (
    <>
      <h1>Business profile</h1>
      <ErrorNote error={profile.error} />
      {profile.data && <ProfileForm key={JSON.stringify(current ?? {})} current={current ?? {}} />}
    </>
  );
}

function ProfileForm({ current }: { current: Profile }) {
  const [values, setValues] = useState<Profile>(current);
  const save = useApiMutation<unknown, void>('gateway', () => ({
    method: 'POST',
    path: '/api/Profiles',
    body: { messaging_product: 'whatsapp', ...Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '' && v !== undefined)) },
  }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Business profile" className="card">
      {TEXT_FIELDS.map((f) => (
        <div className="field" key={f}>
          <label htmlFor={`profile-${f}`}>{f[0].toUpperCase() + f.slice(1)}</label>
          <input id={`profile-${f}`} value={values[f] ?? ''} onChange={(e) => setValues({ ...values, [f]: e.target.value })} />
        </div>
      ))}
      <div className="field">
        <label htmlFor="profile-websites">Websites (comma-separated)</label>
        <input
          id="profile-websites"
          value={(values.websites ?? []).join(', ')}
          onChange={(e) => setValues({ ...values, websites: e.target.value.split(',').map((w) => w.trim()).filter(Boolean) })}
        />
      </div>
      <ErrorNote error={save.error} />
      {save.isSuccess && <p role="status">Profile saved.</p>}
      <button type="submit" disabled={save.isPending}>
        Save profile
      </button>
    </form>
  );
}
