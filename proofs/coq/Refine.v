(** The noise refinement of a σ-formula (Liu et al. 2022 App. C, §5.2): the cell argument
    that every minimiser of F(x) = f(x, δ0(x)) on the domain [ε, x_max) lies in a bracket.
    δ0(x) = (δ + e^ε − (1 − δ)eˣ)/(1 + e^ε) is the guarantee of the Thm 3.1 boundary. *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

Definition refine_d0 (e d x : R) : R := (d + exp e - (1 - d) * exp x) / (1 + exp e).

(** δ0 is non-increasing (δ < 1). *)
Lemma refine_d0_decr : forall e d x y, d < 1 -> x <= y -> refine_d0 e d y <= refine_d0 e d x.
Proof.
  intros e d x y Hd Hxy. unfold refine_d0, Rdiv. pose proof (exp_pos e).
  apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra|].
  assert (exp x <= exp y) by (destruct (Req_dec x y) as [->|]; [lra | left; apply exp_increasing; lra]). nra.
Qed.

(** Beyond X, where δ0(X) <= 0, no point of the domain lies. *)
Lemma refine_below_X : forall e d X x, d < 1 -> refine_d0 e d X <= 0 -> 0 < refine_d0 e d x -> x < X.
Proof.
  intros e d X x Hd HX Hx. destruct (Rlt_or_le x X) as [H|H]; [exact H|].
  pose proof (refine_d0_decr e d X x Hd H). lra.
Qed.

(** f non-increasing in ε and in δ on ε > 0, 0 < δ < 1: the hypothesis that bounds F near x_max. *)
Definition nonincr2 (f : R -> R -> R) : Prop :=
  forall x1 x2 d1 d2, 0 < x1 <= x2 -> 0 < d1 <= d2 -> d2 < 1 -> f x2 d2 <= f x1 d1.

(** A cell where F' < 0: F decreases strictly. *)
Lemma refine_decr : forall (F dF : R -> R) a b x, (forall y, a <= y <= b -> is_derive F y (dF y)) ->
  (forall y, a <= y <= b -> dF y < 0) -> a <= x < b -> F b < F x.
Proof.
  intros F dF a b x D S Hx.
  assert (D' : forall u : R, Rbar_le x u -> Rbar_le u b -> is_derive (fun y => - F y) u (- dF u)).
  { intros u Hu Hu'. change (x <= u) in Hu. change (u <= b) in Hu'.
    apply (is_derive_opp F). apply D. lra. }
  assert (P : forall u : R, Rbar_le x u -> Rbar_le u b -> - dF u > 0).
  { intros u Hu Hu'. change (x <= u) in Hu. change (u <= b) in Hu'. pose proof (S u ltac:(lra)). lra. }
  pose proof (incr_function_le _ x b _ D' P x b ltac:(change (x <= x); lra) ltac:(lra) ltac:(change (b <= b); lra)).
  simpl in H. lra.
Qed.

(** A cell where F' > 0: F increases strictly. *)
Lemma refine_incr : forall (F dF : R -> R) a b x, (forall y, a <= y <= b -> is_derive F y (dF y)) ->
  (forall y, a <= y <= b -> dF y > 0) -> a < x <= b -> F a < F x.
Proof.
  intros F dF a b x D S Hx.
  assert (D' : forall u : R, Rbar_le a u -> Rbar_le u x -> is_derive F u (dF u)).
  { intros u Hu Hu'. change (a <= u) in Hu. change (u <= x) in Hu'. apply D. lra. }
  assert (P : forall u : R, Rbar_le a u -> Rbar_le u x -> dF u > 0).
  { intros u Hu Hu'. change (a <= u) in Hu. change (u <= x) in Hu'. apply S. lra. }
  exact (incr_function_le _ a x _ D' P a x ltac:(change (a <= a); lra) ltac:(lra) ltac:(change (x <= x); lra)).
Qed.

(** Left of the bracket: F > F(r) on [a, r), cell by cell from the right. *)
Definition rleft_ok (F : R -> R) (a r : R) : Prop := forall x, a <= x < r -> F r < F x.

Lemma rleft_base : forall F r, rleft_ok F r r.
Proof. intros F r x Hx. lra. Qed.

Lemma rleft_S : forall (F dF : R -> R) a b r, a < b -> b <= r ->
  (forall y, a <= y <= b -> is_derive F y (dF y)) -> (forall y, a <= y <= b -> dF y < 0) ->
  rleft_ok F b r -> rleft_ok F a r.
Proof.
  intros F dF a b r Hab Hbr D S IH x Hx.
  destruct (Rle_or_lt b x) as [Hb|Hb]; [apply IH; lra|].
  pose proof (refine_decr F dF a b x D S ltac:(lra)).
  destruct (Req_dec b r) as [->|Hne]; [exact H|]. pose proof (IH b ltac:(lra)). lra.
Qed.

Lemma rleft_B : forall (F : R -> R) a b r Fs, F r <= Fs -> (forall y, a <= y <= b -> Fs < F y) ->
  rleft_ok F b r -> rleft_ok F a r.
Proof.
  intros F a b r Fs Hr H IH x Hx.
  destruct (Rle_or_lt b x) as [Hb|Hb]; [apply IH; lra|]. pose proof (H x ltac:(lra)). lra.
Qed.

(** Right of the bracket: F > m on the domain's points of (r1, b], cell by cell from the left;
    P is the domain (closed downwards: δ0 is non-increasing). *)
Definition rright_ok (F : R -> R) (P : R -> Prop) (r1 b m : R) : Prop :=
  forall x, r1 < x <= b -> P x -> m < F x.

Lemma rright_base : forall F P r1 m, rright_ok F P r1 r1 m.
Proof. intros F P r1 m x Hx. lra. Qed.

Lemma rright_S : forall (F dF : R -> R) (P : R -> Prop) r1 a b m, r1 <= a -> a < b ->
  (forall u v, u <= v -> P v -> P u) -> m <= F r1 ->
  (forall y, a <= y <= b -> is_derive F y (dF y)) -> (forall y, a <= y <= b -> dF y > 0) ->
  rright_ok F P r1 a m -> rright_ok F P r1 b m.
Proof.
  intros F dF P r1 a b m Hra Hab Hdown Hm D S IH x Hx Px.
  destruct (Rle_or_lt x a) as [Hxa|Hxa]; [apply IH; [lra | exact Px]|].
  pose proof (refine_incr F dF a b x D S ltac:(lra)).
  destruct (Req_dec a r1) as [->|Hne]; [lra|]. pose proof (IH a ltac:(lra) (Hdown a x ltac:(lra) Px)). lra.
Qed.

Lemma rright_B : forall (F : R -> R) (P : R -> Prop) r1 a b m Fs, m <= Fs ->
  (forall y, a <= y <= b -> P y -> Fs < F y) -> rright_ok F P r1 a m -> rright_ok F P r1 b m.
Proof.
  intros F P r1 a b m Fs Hm H IH x Hx Px.
  destruct (Rle_or_lt x a) as [Hxa|Hxa]; [apply IH; [lra | exact Px]|]. pose proof (H x ltac:(lra) Px). lra.
Qed.

(** A cell near x_max, where F cannot be enclosed (δ0 → 0): F(y) = f(y, δ0(y)) >= f(X, δ0(a))
    for f non-increasing in ε and in δ, y <= X (the domain ends before X) and δ0(y) <= δ0(a). *)
Lemma refine_mono_cell : forall (f : R -> R -> R) e d X a b Fs, nonincr2 f -> d < 1 -> 0 < a ->
  refine_d0 e d a < 1 -> refine_d0 e d X <= 0 -> Fs < f X (refine_d0 e d a) ->
  forall y, a <= y <= b -> 0 < refine_d0 e d y -> Fs < f y (refine_d0 e d y).
Proof.
  intros f e d X a b Fs Hf Hd Ha Ha1 HX H y Hy Py.
  pose proof (refine_below_X e d X y Hd HX Py).
  pose proof (refine_d0_decr e d a y Hd (proj1 Hy)).
  pose proof (Hf y X (refine_d0 e d y) (refine_d0 e d a) ltac:(lra) ltac:(lra) Ha1). lra.
Qed.

(** Every minimiser of F on the domain {x >= e, δ0(x) > 0} lies in [r0, r1]. *)
Theorem refine_bracket : forall (F : R -> R) e d eps r0 r1 a0 X m, d < 1 -> a0 <= eps -> eps <= r0 -> r0 <= r1 ->
  0 < refine_d0 e d r0 -> 0 < refine_d0 e d r1 -> refine_d0 e d X <= 0 ->
  m = Rmin (F r0) (F r1) -> rleft_ok F a0 r0 -> rright_ok F (fun x => 0 < refine_d0 e d x) r1 X m ->
  forall x, eps <= x -> 0 < refine_d0 e d x ->
  (forall y, eps <= y -> 0 < refine_d0 e d y -> F x <= F y) -> r0 <= x <= r1.
Proof.
  intros F e d eps r0 r1 a0 X m Hd Ha0 Hr0 Hr01 P0 P1 PX Hm L R x Hx Px Hmin. split.
  - destruct (Rle_or_lt r0 x) as [H|H]; [exact H|]. exfalso.
    pose proof (L x ltac:(lra)). pose proof (Hmin r0 ltac:(lra) P0). lra.
  - destruct (Rle_or_lt x r1) as [H|H]; [exact H|]. exfalso.
    pose proof (refine_below_X e d X x Hd PX Px).
    pose proof (R x ltac:(lra) Px). pose proof (Hmin r0 ltac:(lra) P0).
    pose proof (Hmin r1 ltac:(lra) P1). subst m. unfold Rmin in *. destruct (Rle_dec _ _); lra.
Qed.

(** F attains its minimum on the domain: F is continuous on the bracket (differentiable there). *)
Theorem refine_exists : forall (F dF : R -> R) e d eps r0 r1 a0 X m, d < 1 -> a0 <= eps -> eps <= r0 ->
  r0 <= r1 -> 0 < refine_d0 e d r1 -> refine_d0 e d X <= 0 -> m = Rmin (F r0) (F r1) ->
  (forall y, r0 <= y <= r1 -> is_derive F y (dF y)) ->
  rleft_ok F a0 r0 -> rright_ok F (fun x => 0 < refine_d0 e d x) r1 X m ->
  exists x, eps <= x /\ 0 < refine_d0 e d x /\ forall y, eps <= y -> 0 < refine_d0 e d y -> F x <= F y.
Proof.
  intros F dF e d eps r0 r1 a0 X m Hd Ha0 Hr0 Hr01 P1 PX Hm D L R.
  assert (C : forall c, r0 <= c <= r1 -> continuity_pt F c).
  { intros c Hc. apply continuity_pt_filterlim.
    apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). eexists. apply D. exact Hc. }
  destruct (continuity_ab_min F r0 r1 Hr01 C) as [mx [Hmin Hmx]].
  exists mx. split; [lra|]. split; [pose proof (refine_d0_decr e d mx r1 Hd (proj2 Hmx)); lra|].
  intros y Hy Py.
  destruct (Rlt_or_le y r0) as [Hy0|Hy0].
  - pose proof (L y ltac:(lra)). pose proof (Hmin r0 ltac:(lra)). lra.
  - destruct (Rle_or_lt y r1) as [Hy1|Hy1]; [apply Hmin; lra|].
    pose proof (refine_below_X e d X y Hd PX Py). pose proof (R y ltac:(lra) Py). pose proof (Hmin r0 ltac:(lra)). pose proof (Hmin r1 ltac:(lra)).
    subst m. unfold Rmin in *. destruct (Rle_dec _ _); lra.
Qed.
