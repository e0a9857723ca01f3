#pragma once
// Result files appear whole or not at all: written to a temporary file in
// the same directory, flushed, then renamed over the target.

#include <filesystem>
#include <string>

namespace wsesim::results {

// Throws std::runtime_error naming the path on failure; leaves no temporary behind.
void writeFileAtomically(const std::filesystem::path& target, const std::string& contents);

// Renames a finished file into place (same filesystem); throws on failure.
void publishFile(const std::filesystem::path& finished, const std::filesystem::path& target);

}  // namespace wsesim::results
