import sys, time; sys.path[:0]=["build/peers/ort_mha/site","peers/ort_mha"]
import numpy as np, ort_mha
B,H,G,N,d,W,cap=1,8,2,2048,128,512,0.0
if len(sys.argv)>1: W,cap=int(sys.argv[1]),float(sys.argv[2])
r=H//G
for gqa in (1,0):
    mode="bsnh" if gqa else "groups"
    R=ort_mha.Runner(B,H,G,N,N,d,1,1/np.sqrt(d),0,2,mode,W,0.0,cap,gqa)
    q=np.random.rand(*R.shapes["query"]).astype(np.float32); k=np.random.rand(*R.shapes["key"]).astype(np.float32)
    v=np.random.rand(*R.shapes["value"]).astype(np.float32); o=np.empty(R.shapes["output"],np.float32)
    args=[x.ctypes.data for x in (q,k,v,o)]
    R(*args); ts=[]
    for _ in range(7):
        t=time.perf_counter(); R(*args); ts.append(time.perf_counter()-t)
    print(f"W={W} cap={cap} {'GQA local_window_size' if gqa else 'MHA over KV groups + bias'}: median {np.median(ts)*1e3:.1f} ms min {min(ts)*1e3:.1f}")
