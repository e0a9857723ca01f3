// The wsesim executable. SystemC's library provides main(), which sets up
// the simulation kernel and calls sc_main.
#include <systemc>

#include <iostream>

#include "testbench/cli/Cli.h"

int sc_main(int argc, char* argv[]) { return wsesim::cli::main(argc, argv, std::cout, std::cerr); }
