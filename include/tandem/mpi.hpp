// tandem/mpi.hpp — a party spread over MPI ranks (issue 31, docs/DESIGN.md
// §12): the optional tandem::mpi component (CMake -DTANDEM_MPI=ON, target
// tandem::mpi; Open MPI from scripts/setup-deps.sh --mpi). The header-only
// core never includes it.
//
// Each party is an MPI job of R ranks, started with mpirun on its own hosts;
// both parties run the same R. mpi/ranks.hpp: the environment and a party's
// ranks; mpi/links.hpp: the rank links; mpi/worker.hpp: region parts run on
// other ranks; mpi/garble.hpp: garbling with the plan's workers as ranks;
// mpi/session.hpp: sessions with the ranks as workers (mpi::run). Rank r opens its own TCP
// link to the peer party's rank r — Alice's rank r listens on base_port + r,
// Bob's rank r connects to it — and both ends introduce the link with the
// session id Alice's rank 0 drew (broadcast to her ranks), the rank and R, so
// a stray connection, a peer rank of another number or another R is a
// protocol_error naming the rank. A failure on any rank reaches every rank of
// the party before anything else happens (ranks::agree): MPI's default, one
// rank's error aborting the whole job with MPI's own message, is replaced by
// errors returned as codes and a tandem::error on every rank naming the rank
// that failed and why.
#pragma once

#include <tandem/mpi/garble.hpp>
#include <tandem/mpi/links.hpp>
#include <tandem/mpi/liveness.hpp>
#include <tandem/mpi/ranks.hpp>
#include <tandem/mpi/session.hpp>
#include <tandem/mpi/worker.hpp>
