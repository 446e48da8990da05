// The async boundary a federation build needs: shared modules are negotiated before bootstrap runs.
void import('./bootstrap');
