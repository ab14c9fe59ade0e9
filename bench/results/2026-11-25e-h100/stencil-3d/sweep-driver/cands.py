# name: (SX, SY, V, Ring, MinBlocks, Load, CS, Split)
C = {
 "c128x32v16r6":        (128,32,16,6,1,0,1,0),
 "c128x32v16r6_l2pf":   (128,32,16,6,1,1,1,0),
 "c128x32v16r6_bulk":   (128,32,16,6,1,2,1,0),
 "c128x32v16r6_split":  (128,32,16,6,1,0,1,1),
 "c128x32v16r6_plain":  (128,32,16,6,1,0,0,0),
 "c128x32v16r6_bulk_split": (128,32,16,6,1,2,1,1),
 "c256x32v16r3":        (256,32,16,3,1,0,1,0),
 "c256x16v16r6":        (256,16,16,6,1,0,1,0),
 "c256x16v16r5_bulk_split": (256,16,16,5,1,2,1,1),
 "c256x32v32r3":        (256,32,32,3,1,0,1,0),
 "c256x16v16r5":        (256,16,16,5,1,0,1,0),
 "c256x16v16r5_l2pf":   (256,16,16,5,1,1,1,0),
 "c256x16v16r5_bulk":   (256,16,16,5,1,2,1,0),
 "c256x16v16r5_split":  (256,16,16,5,1,0,1,1),
 "c256x16v8r5":         (256,16,8,5,1,0,1,0),
 "c256x16v16r5_plain":  (256,16,16,5,1,0,0,0),
 "c512x8v8r5_bulk":     (512,8,8,5,1,2,1,0),
 "c512x8v8r5":          (512,8,8,5,1,0,1,0),
 "c128x16v16r5m2":      (128,16,16,5,2,0,1,0),
 "c128x16v16r5m2_bulk": (128,16,16,5,2,2,1,0),
 "c256x8v8r4m2":        (256,8,8,4,2,0,1,0),
 "c256x8v8r4m2_bulk":   (256,8,8,4,2,2,1,0),
}
names=list(C)
files=4
per=(len(names)+files-1)//files
for f in range(files):
    part=names[f*per:(f+1)*per]
    s='#include "common.cuh"\n#include "kern.cuh"\n'
    for shape in ("star3d1r","box3d1r"):
        s+=f'std::vector<config_entry<{shape}>> part{f}_{shape}()\n{{\n    using S = {shape};\n    return {{\n'
        for n in part:
            a=C[n]
            s+=f'        {{"{n}", x3::launch<S, boundary::dirichlet, x3::cfg<S, {a[0]}, {a[1]}, {a[2]}, {a[3]}, {a[4]}, {a[5]}, {"true" if a[6] else "false"}, {a[7]}>>}},\n'
        s+='    };\n}\n'
    open(f'part{f}.cu','w').write(s)
h='#pragma once\n#include "common.cuh"\n'
for f in range(files):
    for shape in ("star3d1r","box3d1r"):
        h+=f'std::vector<config_entry<{shape}>> part{f}_{shape}();\n'
open('parts.h','w').write(h)
