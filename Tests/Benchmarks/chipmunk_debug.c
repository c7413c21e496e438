/*
 * What Debian's debug build of Chipmunk2D costs the jar: CPU time per cpSpaceStep on a space set up as
 * SnapJar's JarWorld sets it up, run against whichever libchipmunk.so.7 the dynamic linker finds.
 *
 * Debian's libchipmunk7 is built without -DNDEBUG: it prints an "Initializing cpSpace ... (Debug
 * Enabled)" banner and keeps Chipmunk's soft assertions and body sanity checks in every step. This
 * program is linked once (-lchipmunk) and run against the installed library and against copies of the
 * same source built with and without -DNDEBUG (LD_LIBRARY_PATH picks which); chipmunk_debug.sh, next to
 * it, does all of that end to end and prints the table (docs/benchmarks.md, "The jar: Debian's debug
 * Chipmunk").
 *
 * The space is JarWorld's (Sources/SnapJar/JarWorld.swift): 12 iterations, damping 0.85, gravity 1800
 * px/s² down, sleep after 0.5 s under 6 px/s, collision slop 0.5, the jar's thick static segment walls
 * with the lid, fixed steps of 1/120 s. The jar's size and the stickers' size follow JarLayout for the
 * screen (landscape only), and the stickers are half cut-outs (convex hulls of at most 12 points), half
 * round cuts (12-gons), as the station's bench-jar has them. What JarAnimator does is followed too: the
 * jar is built with the stickers stacked in rows from the bottom (JarAnimator.stack), a new one drops
 * from the top at a place the seed picks, and escaped bodies are looked for every 30 steps. Three cases,
 * each stepped until every body sleeps (at most 2400 steps, as JarAnimator.settle):
 *
 *   settle  the jar built with N stickers stacked, stepped until asleep (the station's start)
 *   drop    one more sticker dropped into the settled jar, until asleep (what follows every capture)
 *   shake   the settled jar shaken, until asleep (the stirred jar; docs' "physics step" figure)
 *
 * A run builds the world from the same seed and replays all three, so every run and every build of the
 * library takes the same steps; the checksum of the final positions shows that it did. For each case it
 * prints the steps and the thread CPU time per cpSpaceStep (each step timed alone; the mean over the
 * case's steps is one run's figure), median, min and max over the runs, in microseconds.
 *
 *   cc -O2 -o chipmunk_debug Tests/Benchmarks/chipmunk_debug.c -lchipmunk -lm
 *   ./chipmunk_debug [--runs 15] [--size 800x480] [--stickers 60] [--seed 11]
 *   LD_LIBRARY_PATH=/tmp/chipmunk-bench/ndebug ./chipmunk_debug        # another build of the library
 *   valgrind --tool=callgrind --toggle-collect=cpSpaceStep --callgrind-out-file=cg.out \
 *       ./chipmunk_debug --runs 1 --no-timing      # instructions inside cpSpaceStep
 *
 * Built where valgrind's <valgrind/callgrind.h> is, it asks callgrind for one dump a case (cg.out.1 the
 * settle, .2 the drop, .3 the shake; the "totals:" line of each is its instructions); --no-timing takes
 * the steps without calling the clock.
 */
#define _GNU_SOURCE
#include <chipmunk/chipmunk.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h> /* the valgrind package's; does nothing unless run under callgrind */
#endif
#endif
#ifndef CALLGRIND_DUMP_STATS_AT
#define CALLGRIND_DUMP_STATS_AT(name)
#endif

/* ---- JarWorld's random numbers (SplitMix64), so the drops land where the station's would. ---- */

typedef struct { uint64_t state; } SplitMix;

static uint64_t splitmix_next(SplitMix *r) {
    r->state += 0x9E3779B97F4A7C15ull;
    uint64_t z = r->state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double splitmix_unit(SplitMix *r) { return (double)(splitmix_next(r) >> 11) / (double)(1ull << 53); }

/* ---- JarLayout (Sources/SnapScreens/ScreenRenderer+Jar.swift), landscape. ---- */

typedef struct { double x, y, width, height, corner, wall; } Interior;

static Interior jar_interior(double width, double height) {
    double shortSide = fmin(width, height);
    double margin = round(shortSide * 0.045);
    double titleBar = round(shortSide * 0.068 * 1.9), smallBar = round(shortSide * 0.044 * 1.9);
    double bx = margin / 2, by = titleBar + margin / 2;
    double bw = width - margin, bh = height - titleBar - smallBar - margin;
    double gw = fmin(bw * 0.5, bh * 1.05);
    double wall = fmax(6, round(shortSide * 0.022));
    double lid = round(bh * 0.08);
    Interior in = {bx + wall, by + lid + wall, gw - 2 * wall, bh - lid - 2 * wall, 0, wall};
    in.corner = round(in.width * 0.16);
    return in;
}

static int sticker_side(const Interior *in, int count) {
    double area = in->width * in->height * 0.5 / (count > 5 ? count : 5);
    double side = sqrt(area) * 1.15;
    return (int)round(fmin(in->width * 0.42, fmax(20, side)));
}

/* ---- Sticker outlines: convex, at most 12 points, around the sticker's centre. ---- */

#define MAX_POINTS 24

typedef struct { int count; cpVect v[MAX_POINTS]; } Outline;

static double cross3(cpVect o, cpVect a, cpVect b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

static int by_xy(const void *pa, const void *pb) {
    const cpVect *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    return a->y < b->y ? -1 : a->y > b->y;
}

/* Andrew's monotone chain, then the vertex that loses least area dropped until 12 are left (as
 * ConvexHull.of and ConvexHull.simplified do). */
static void hull(Outline *o) {
    cpVect p[MAX_POINTS], h[2 * MAX_POINTS];
    int n = o->count, k = 0;
    memcpy(p, o->v, sizeof(cpVect) * n);
    qsort(p, n, sizeof(cpVect), by_xy);
    for (int i = 0; i < n; i++) {
        while (k >= 2 && cross3(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    for (int i = n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && cross3(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    k--;
    while (k > 12) {
        int cheapest = 0;
        double least = INFINITY;
        for (int i = 0; i < k; i++) {
            double a = fabs(cross3(h[(i + k - 1) % k], h[i], h[(i + 1) % k]));
            if (a < least) least = a, cheapest = i;
        }
        memmove(h + cheapest, h + cheapest + 1, sizeof(cpVect) * (k - cheapest - 1));
        k--;
    }
    o->count = k;
    memcpy(o->v, h, sizeof(cpVect) * k);
}

/* Even indices: a cut-out (a plate seen from above, wider than tall, its edge uneven); odd: a round cut. */
static Outline sticker_outline(int index, int side, SplitMix *shapes) {
    Outline o = {0};
    double r = side / 2.0;
    if (index % 2 == 0) {
        double aspect = 0.75 + 0.2 * splitmix_unit(shapes);
        for (int i = 0; i < 20; i++) {
            double a = 2 * M_PI * i / 20, reach = r * (0.8 + 0.2 * splitmix_unit(shapes));
            o.v[o.count++] = cpv(cos(a) * reach, sin(a) * reach * aspect);
        }
        hull(&o);
    } else {
        for (int i = 0; i < 12; i++) {
            double a = 2 * M_PI * (i + 0.5) / 12;
            o.v[o.count++] = cpv(cos(a) * r, sin(a) * r);
        }
    }
    return o;
}

/* ---- JarWorld and the parts of JarAnimator that step it. ---- */

#define MAX_BODIES 512

typedef struct {
    cpSpace *space;
    Interior in;
    SplitMix random;
    cpShape *walls[8];
    int wallCount;
    cpBody *bodies[MAX_BODIES];
    cpShape *shapes[MAX_BODIES];
    int count;
    long steps;        /* fixed steps since the start, as JarAnimator.steps */
    int timing;        /* whether to time each step */
    double cpuSeconds; /* CPU time inside cpSpaceStep, summed */
} Jar;

static double thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void jar_init(Jar *jar, Interior in, uint64_t seed) {
    memset(jar, 0, sizeof *jar);
    jar->in = in;
    jar->random.state = seed;
    cpSpace *space = jar->space = cpSpaceNew();
    cpSpaceSetIterations(space, 12);
    cpSpaceSetGravity(space, cpv(0, 1800));
    cpSpaceSetDamping(space, 0.85);
    cpSpaceSetSleepTimeThreshold(space, 0.5);
    cpSpaceSetIdleSpeedThreshold(space, 6);
    cpSpaceSetCollisionSlop(space, 0.5);
    double left = in.x, top = in.y, right = in.x + in.width, bottom = in.y + in.height;
    double r = in.wall / 2, c = in.corner;
    cpVect points[] = {
        cpv(left - r, top - r), cpv(left - r, bottom - c), cpv(left + c - r * 0.4, bottom + r),
        cpv(right - c + r * 0.4, bottom + r), cpv(right + r, bottom - c), cpv(right + r, top - r),
        cpv(left - r, top - r), /* the lid */
    };
    cpBody *staticBody = cpSpaceGetStaticBody(space);
    for (int i = 0; i + 1 < (int)(sizeof points / sizeof *points); i++) {
        cpShape *wall = cpSegmentShapeNew(staticBody, points[i], points[i + 1], r);
        cpShapeSetFriction(wall, 0.7);
        cpShapeSetElasticity(wall, 0.2);
        cpSpaceAddShape(space, wall);
        jar->walls[jar->wallCount++] = wall;
    }
}

static void jar_free(Jar *jar) {
    for (int i = 0; i < jar->count; i++) {
        cpSpaceRemoveShape(jar->space, jar->shapes[i]);
        cpSpaceRemoveBody(jar->space, jar->bodies[i]);
        cpShapeFree(jar->shapes[i]);
        cpBodyFree(jar->bodies[i]);
    }
    for (int i = 0; i < jar->wallCount; i++) {
        cpSpaceRemoveShape(jar->space, jar->walls[i]);
        cpShapeFree(jar->walls[i]);
    }
    cpSpaceFree(jar->space);
}

/* JarWorld.add: dropped from the top where the seed says when `at` is NULL. */
static void jar_add(Jar *jar, Outline o, const cpVect *at) {
    if (jar->count >= MAX_BODIES) return;
    double mass = fmax(1, cpAreaForPoly(o.count, o.v, 0) / 1000);
    double moment = cpMomentForPoly(mass, o.count, o.v, cpvzero, 0);
    cpBody *body = cpBodyNew(mass, moment);
    double radius = 0;
    for (int i = 0; i < o.count; i++) radius = fmax(radius, cpvlength(o.v[i]));
    double x = at ? at->x : jar->in.x + radius + splitmix_unit(&jar->random) * fmax(1, jar->in.width - 2 * radius);
    double y = at ? at->y : jar->in.y + radius + 2;
    cpBodySetPosition(body, cpv(x, y));
    cpBodySetAngle(body, (splitmix_unit(&jar->random) - 0.5) * 1.2);
    cpBodySetAngularVelocity(body, (splitmix_unit(&jar->random) - 0.5) * 2);
    cpShape *shape = cpPolyShapeNew(body, o.count, o.v, cpTransformIdentity, 1);
    cpShapeSetFriction(shape, 0.8);
    cpShapeSetElasticity(shape, 0.15);
    cpSpaceAddBody(jar->space, body);
    cpSpaceAddShape(jar->space, shape);
    jar->bodies[jar->count] = body;
    jar->shapes[jar->count++] = shape;
}

static int jar_asleep(const Jar *jar) {
    for (int i = 0; i < jar->count; i++)
        if (!cpBodyIsSleeping(jar->bodies[i])) return 0;
    return 1;
}

/* JarWorld.returnEscaped, run every 30 steps by JarAnimator. */
static void jar_return_escaped(Jar *jar) {
    const Interior *in = &jar->in;
    for (int i = 0; i < jar->count; i++) {
        cpVect p = cpBodyGetPosition(jar->bodies[i]);
        double s = in->wall;
        if (p.x >= in->x - s && p.x <= in->x + in->width + s && p.y >= in->y - s && p.y <= in->y + in->height + s)
            continue;
        cpBodySetPosition(jar->bodies[i], cpv(in->x + in->width / 2, in->y + in->wall));
        cpBodySetVelocity(jar->bodies[i], cpvzero);
        cpBodySetAngularVelocity(jar->bodies[i], 0);
        cpBodyActivate(jar->bodies[i]);
    }
}

static void jar_step(Jar *jar) {
    if (jar->timing) {
        double start = thread_cpu();
        cpSpaceStep(jar->space, 1.0 / 120.0);
        jar->cpuSeconds += thread_cpu() - start;
    } else {
        cpSpaceStep(jar->space, 1.0 / 120.0);
    }
    if (++jar->steps % 30 == 0) jar_return_escaped(jar);
}

/* JarAnimator.settle(limit: 2400): steps until every body sleeps; returns the steps taken. */
static int jar_settle(Jar *jar) {
    int taken = 0;
    while (!jar_asleep(jar) && taken < 2400) {
        jar_step(jar);
        taken++;
    }
    return taken;
}

/* JarWorld.shake(speed: 700). */
static void jar_shake(Jar *jar) {
    for (int i = 0; i < jar->count; i++) {
        cpBodyActivate(jar->bodies[i]);
        double vx = (splitmix_unit(&jar->random) - 0.5) * 700;
        double vy = -splitmix_unit(&jar->random) * 700;
        cpBodySetVelocity(jar->bodies[i], cpv(vx, vy));
        cpBodySetAngularVelocity(jar->bodies[i], (splitmix_unit(&jar->random) - 0.5) * 8);
    }
}

/* ---- One run: the three cases. ---- */

enum { SETTLE, DROP, SHAKE, CASES };
static const char *caseNames[CASES] = {"settle", "drop", "shake"};

typedef struct { int steps[CASES]; double usPerStep[CASES]; double checksum; } Run;

static Run run_once(Interior in, int stickers, uint64_t seed, int timing) {
    Run run = {0};
    Jar jar;
    jar_init(&jar, in, seed);
    jar.timing = timing;
    int side = sticker_side(&in, stickers);
    SplitMix shapes = {7};

    /* JarAnimator.rebuild: the stickers stacked in rows from the bottom, clear of the cut corners. */
    double cell = side * 1.08, y = in.y + in.height - cell / 2;
    int placed = 0;
    while (placed < stickers && y - cell / 2 >= in.y) {
        double inset = in.y + in.height - y < in.corner + cell / 2 ? in.corner : 0;
        int perRow = (int)((in.width - 2 * inset) / cell);
        double left = in.x + in.width / 2 - perRow * cell / 2;
        for (int column = 0; column < perRow && placed < stickers; column++, placed++) {
            cpVect slot = cpv(left + cell * (column + 0.5), y);
            jar_add(&jar, sticker_outline(placed, side, &shapes), &slot);
        }
        y -= cell;
    }
    /* Those the stack cannot hold drop in one after another, 30 steps apart (JarAnimator.releaseDrop);
     * their steps count as the settle's. */
    int early = 0;
    for (int i = placed; i < stickers; i++, early += 30) {
        for (int s = 0; s < 30; s++) jar_step(&jar);
        jar_add(&jar, sticker_outline(i, side, &shapes), NULL);
    }

    for (int c = 0; c < CASES; c++) {
        if (c == DROP) jar_add(&jar, sticker_outline(0, side, &shapes), NULL);
        if (c == SHAKE) jar_shake(&jar);
        double before = c == SETTLE ? 0 : jar.cpuSeconds;
        run.steps[c] = jar_settle(&jar) + (c == SETTLE ? early : 0);
        run.usPerStep[c] = run.steps[c] ? (jar.cpuSeconds - before) * 1e6 / run.steps[c] : 0;
        CALLGRIND_DUMP_STATS_AT(caseNames[c]); /* one callgrind dump a case: its instructions alone */
    }
    for (int i = 0; i < jar.count; i++) {
        cpVect p = cpBodyGetPosition(jar.bodies[i]);
        run.checksum += p.x + 3 * p.y + 7 * cpBodyGetAngle(jar.bodies[i]);
    }
    jar_free(&jar);
    return run;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Makes the first space with standard output in a temporary file, so the debug build's banner does not
 * mix with the table, and says whether there was one. */
static int debug_banner(void) {
    fflush(stdout);
    FILE *capture = tmpfile();
    int saved = dup(STDOUT_FILENO);
    if (!capture || saved < 0) {
        cpSpaceFree(cpSpaceNew());
        return -1;
    }
    dup2(fileno(capture), STDOUT_FILENO);
    cpSpaceFree(cpSpaceNew());
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    char text[512] = {0};
    rewind(capture);
    size_t n = fread(text, 1, sizeof text - 1, capture);
    text[n] = 0;
    fclose(capture);
    return strstr(text, "Debug Enabled") != NULL;
}

int main(int argc, char **argv) {
    int runs = 15, stickers = 60, timing = 1, width = 800, height = 480;
    uint64_t seed = 11; /* bench-jar's seed */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--stickers") && i + 1 < argc) stickers = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2) width = 0;
        } else if (!strcmp(argv[i], "--no-timing")) timing = 0;
        else {
            fprintf(stderr, "usage: %s [--runs N] [--size WxH] [--stickers N] [--seed N] [--no-timing]\n", argv[0]);
            return 2;
        }
    }
    if (runs < 1 || stickers < 1 || stickers >= MAX_BODIES || width < height || height < 100) {
        fprintf(stderr, "%s: runs and stickers must be positive (stickers < %d), the size landscape\n", argv[0],
                MAX_BODIES);
        return 2;
    }
    int banner = debug_banner();
    Interior in = jar_interior(width, height);
    printf("# Chipmunk %s, %s build (banner %s); jar %dx%d, %d stickers of %d px, seed %llu, %d runs\n",
           cpVersionString, banner == 1 ? "debug" : "NDEBUG", banner == 1 ? "printed" : "not printed", width, height,
           stickers, sticker_side(&in, stickers), (unsigned long long)seed, runs);
    double *times[CASES];
    for (int c = 0; c < CASES; c++) times[c] = calloc(runs, sizeof(double));
    Run first = {0};
    for (int r = 0; r < runs; r++) {
        Run run = run_once(in, stickers, seed, timing);
        if (r == 0) first = run;
        for (int c = 0; c < CASES; c++) {
            if (run.steps[c] != first.steps[c] || run.checksum != first.checksum) {
                fprintf(stderr, "run %d did not replay run 0 (case %s)\n", r, caseNames[c]);
                return 1;
            }
            times[c][r] = run.usPerStep[c];
        }
    }
    printf("%-7s %6s %12s %10s %10s\n", "case", "steps", "median_us", "min_us", "max_us");
    for (int c = 0; c < CASES; c++) {
        qsort(times[c], runs, sizeof(double), by_value);
        double median = runs % 2 ? times[c][runs / 2] : (times[c][runs / 2 - 1] + times[c][runs / 2]) / 2;
        printf("%-7s %6d %12.2f %10.2f %10.2f\n", caseNames[c], first.steps[c], median, times[c][0],
               times[c][runs - 1]);
        free(times[c]);
    }
    printf("checksum %.9f\n", first.checksum);
    return 0;
}
