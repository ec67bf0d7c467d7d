import { Link, useNavigate } from 'react-router';
import { useSession } from '../../auth/session';
import { List } from '../../components/List';
import { CollectionPicker } from './CollectionPicker';
import { documentsPage } from './paths';

/** Environments, contexts and types that hold documents, with their counts. */
export default function Collections() {
  const { credentials } = useSession();
  const navigate = useNavigate();
  return (
    <>
      <h1>Collections</h1>
      <h2>Open a collection</h2>
      <CollectionPicker value={null} onPick={(c) => navigate(documentsPage(c))} />
      <h2>Collections with documents</h2>
      <List
        service="docstore"
        path="/api/v1/client/{client}/collections"
        init={{ params: { path: { client: credentials.docstoreClient! } } }}
        label="Collections"
        columns={[
          { header: 'Environment', cell: (c) => c.environment },
          { header: 'Context', cell: (c) => c.context },
          { header: 'Type', cell: (c) => <Link to={documentsPage(c)}>{c.type}</Link> },
          { header: 'Documents', cell: (c) => c.documents },
        ]}
        rowKey={(c) => `${c.environment}/${c.context}/${c.type}`}
        empty="No documents yet: open a collection above to create the first."
      />
    </>
  );
}
