import { Component, type ReactNode } from 'react';

/** Never a blank page: a render error shows what went wrong and a way back. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div role="alert" className="error">
        <h2>This page could not be shown</h2>
        <p>{this.state.error.message}</p>
        <button type="button" onClick={() => this.setState({ error: null })}>
          Try again
        </button>{' '}
        <a href="/">Back to the overview</a>
      </div>
    );
  }
}
