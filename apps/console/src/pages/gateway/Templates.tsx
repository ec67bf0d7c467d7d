import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { List } from '../../components/List';
import { StatusBadge } from '../../components/StatusBadge';
import { FilterSelect } from '../../components/FilterSelect';
import type { components } from '../../api/generated/gateway';

const STATUSES = ['', 'PENDING', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED'];
const CATEGORIES: Array<components['schemas']['TemplateView']['category'] | ''> = ['', 'UTILITY', 'MARKETING', 'AUTHENTICATION'];

/** The account's templates with their review state, filtered by status and category. */
export default function Templates() {
  const [params, setParams] = useSearchParams();
  // The address may say anything: only a category the API knows is sent.
  const listCategory = CATEGORIES.find((c) => c === params.get('category')) || undefined;
  const [status, setStatus] = useState(params.get('status') ?? '');
  const [category, setCategory] = useState(params.get('category') ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams(Object.fromEntries(Object.entries({ status, category }).filter(([, v]) => v)));
  };
  return (
    <>
      <h1>Templates</h1>
      <form onSubmit={submit} className="inline" aria-label="Filter templates">
        <FilterSelect id="tpl-status" label="Review state" value={status} options={STATUSES} onChange={setStatus} />
        <FilterSelect id="tpl-category" label="Category" value={category} options={CATEGORIES} onChange={setCategory} />
        <button type="submit">Apply</button>
      </form>
      <List
        service="gateway"
        path="/api/Templates"
        sizeParam="limit"
        init={{ params: { query: { status: params.get('status') || undefined, category: listCategory } } }}
        label="Templates"
        columns={[
          { header: 'Name', cell: (t) => t.name },
          { header: 'Language', cell: (t) => t.language },
          { header: 'Category', cell: (t) => t.category },
          { header: 'Review state', cell: (t) => <StatusBadge status={t.status} /> },
        ]}
        rowKey={(t) => t.id}
      />
    </>
  );
}
