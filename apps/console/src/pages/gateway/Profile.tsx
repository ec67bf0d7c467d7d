import { useState, type FormEvent } from 'react';
import { useApiMutation, useApiQuery } from '../../api/hooks';
import type { components } from '../../api/generated/gateway';
import { ErrorNote } from '../../components/ErrorNote';

type ProfileBody = components['schemas']['UpdateProfileBody'];

const TEXT_FIELDS = ['about', 'address', 'description', 'email', 'vertical'] as const;

/** The form's values: the text fields as typed, the websites as a list. */
type Profile = Partial<Record<(typeof TEXT_FIELDS)[number], string>> & { websites?: string[] };

/** The fields of the profile the API answers (documented as an open object) that the form edits. */
function formValues(answer: Record<string, unknown> | undefined): Profile {
  const values: Profile = {};
  for (const f of TEXT_FIELDS) if (typeof answer?.[f] === 'string') values[f] = answer[f];
  if (Array.isArray(answer?.websites)) values.websites = answer.websites.filter((w): w is string => typeof w === 'string');
  return values;
}

/** The phone's business profile: read and change. */
export default function ProfilePage() {
  const profile = useApiQuery('gateway', '/api/Profiles', {});
  const current = formValues(profile.data?.data[0]);
  return (
    <>
      <h1>Business profile</h1>
      <ErrorNote error={profile.error} />
      {profile.data && <ProfileForm key={JSON.stringify(current)} current={current} />}
    </>
  );
}

function ProfileForm({ current }: { current: Profile }) {
  const [values, setValues] = useState<Profile>(current);
  // `vertical` is typed freely here; the gateway refuses an unknown one with its 400 naming the field.
  const body = { messaging_product: 'whatsapp', ...Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '' && v !== undefined)) } as ProfileBody;
  const save = useApiMutation('gateway', 'post', '/api/Profiles', () => ({ body }));
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
          onChange={(e) =>
            setValues({
              ...values,
              websites: e.target.value
                .split(',')
                .map((w) => w.trim())
                .filter(Boolean),
            })
          }
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
