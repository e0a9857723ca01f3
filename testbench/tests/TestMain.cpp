// main() for the test binaries: ours, not libsystemc's, so SystemC-based
// tests can call sc_start() directly and the banner stays quiet.
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// libsystemc references sc_main (from its own main); test binaries that use
// SystemC link it, though their main is the one above.
extern "C" int sc_main(int, char*[]) { return 0; }
