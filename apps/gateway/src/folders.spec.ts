import { folderGraph } from '@app/testkit';

// The top-level folders of src/ form a hierarchy: a circle means a shared type lives in the wrong place,
// or a folder does two jobs. The edges are printed when it fails, to show where the circle runs.
it('has no circle between the folders of src/', () => {
  const { edges, circles } = folderGraph(__dirname);
  expect({ circles, edges }).toEqual({ circles: [], edges });
});
