import { Link } from 'react-router';

export default function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        No page here. <Link to="/">Back to the overview</Link>
      </p>
    </>
  );
}
