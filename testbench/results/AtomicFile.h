#pragma once
// Result files appear whole or not at all: written to a temporary file in
// the same directory, flushed, then renamed over the target.

#include <filesystem>
#include <string>

namespace wsesim::results {

// Throws std::runtime_error naming the path on failure; leaves no temporary behind.
void writeFileAtomically(const std::filesystem::path& target, const std::string& contents);

// Throws std::runtime_error saying why unless writeFileAtomically could
// write `target`: it is not a directory, its directory exists, and a file
// named as its temporary can be created there (tried, and removed at once).
// For a check before a long run, not a promise: the disk may still fill.
void checkWritable(const std::filesystem::path& target);

// Renames a finished file into place (same filesystem); throws on failure.
void publishFile(const std::filesystem::path& finished, const std::filesystem::path& target);

}  // namespace wsesim::results
